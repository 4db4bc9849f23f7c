export type {
  AmountColumn,
  BatchFormat,
  BatchRow,
  Delimiter,
  Encoding,
  LoadedBatch,
  LoadOptions,
  PayoutMethod,
  PayoutRequest,
  Policy,
  RowError,
} from './types';
export { contentHash, loadBatch, loadStopList } from './load';
export { isLuhnValid, isValidBankAccount, isValidInn12, normalizePhone, type PhoneResult } from './checks';
export { COLUMNS, HEADER_ALIASES, REQUIRED_COLUMNS, type Column } from './format';
export { STOP_LIST_MESSAGE, FPS_DESCRIPTION_MAX } from './validate';
export {
  RESULT_COLUMNS,
  summarize,
  summarizeReport,
  defaultResult,
  writeReport,
  type ReportResult,
  type ReportResults,
  type ReportBatch,
  type StateSummary,
  type Summary,
} from './report';
