/** An error answer of the sandbox: HTTP status + the bank's {code, description}. */
export class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    readonly description: string,
  ) {
    super(`${code}: ${description}`);
    this.name = 'ApiError';
  }
}

export const invalid = (description: string): ApiError => new ApiError(400, 'invalid_request', description);
export const notFound = (what: string): ApiError =>
  new ApiError(404, `${what}_not_found`, `${what.replace(/_/g, ' ')} not found`);
export const badState = (description: string): ApiError => new ApiError(409, 'invalid_state', description);
export const internal = (description = 'internal error, retry later'): ApiError =>
  new ApiError(500, 'internal_error', description);
