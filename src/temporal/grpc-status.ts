/**
 * gRPC status codes payrun acts on, from raw workflowService calls (@grpc/grpc-js is the SDK's dependency,
 * not ours, so its `status` enum is not imported).
 */
export const GRPC_NOT_FOUND = 5;
export const GRPC_RESOURCE_EXHAUSTED = 8;

/** The gRPC status code an error from the Temporal client carries, if any. */
export const grpcCode = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;
