/** The ingress's metrics are defined with the worker's in src/metrics; this keeps the ingress's import path. */
export {
  IngressMetrics,
  OUTCOMES,
  CONNECTION_ERRORS,
  type Outcome,
  type ConnectionError,
} from '../metrics/ingress';
