export type {
  AmountColumn,
  BatchFormat,
  BatchRow,
  Delimiter,
  Encoding,
  FileEncoding,
  LoadedBatch,
  LoadOptions,
  Policy,
  RowError,
} from './types';
export { contentHash, loadBatch, loadStopList } from './load';
export {
  checkInn12,
  isLuhnValid,
  isValidBankAccount,
  isValidInn12,
  normalizePhone,
  type PhoneResult,
} from './checks';
export { looksLikeMojibake } from './encoding';
export { COLUMNS, HEADER_ALIASES, REQUIRED_COLUMNS, type Column } from './format';
export {
  STOP_LIST_MESSAGE,
  FPS_DESCRIPTION_MAX,
  DESCRIPTION_MAX,
  DEFAULT_MAX_PAYOUT_KOPECKS,
  NAME_MAX,
  SERVICE_NAME_MAX,
} from './validate';
export {
  RESULT_COLUMNS,
  notProcessed,
  invalidResult,
  ReportWriter,
  reportWidth,
  Summarizer,
  summarize,
  summarizeReport,
  defaultResult,
  maskDigits,
  neutralizeCell,
  writeReport,
  type ReportOptions,
  type ReportResult,
  type ReportResults,
  type ReportBatch,
  type StateSummary,
  type Summary,
} from './report';
