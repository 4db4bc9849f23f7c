export { createIngress } from './server';
export type { Ingress, IngressOptions, ListeningIngress } from './server';
export { runIngressFromEnv, loadIngressEnv, connectClientWithRetry } from './main';
export { routeBankEvent, routeToWorkflows, deliverToInbox, workflowsForSession } from './routing';
export type { InboxTarget, RoutingOutcome, WorkflowRouting } from './routing';
export { buildBankEventSignal, eventIdOf, isRoutable } from './signal';
export { metadataTargets, payrunMetadataOf, sessionVisibilityQuery } from './targets';
export { isAllowedSource, normalizeIp } from './address';
export { IngressMetrics } from './metrics';
