// The trajectory store's public surface: the IndexedDB store, the portable schema, import validation
// and the export formats. UI state classes and the rollout import from here.
export { TrajectoryStore } from './store.ts';
export type * from './api.ts';
export type { EpisodeFilter, EpisodePage, EpisodeSummary, PageCursor, PageRequest } from './queries.ts';
export type { StoreChange, StoreEvent, StoreListener } from './notify.ts';
export type { StorageInfo } from './session.ts';
export type { AdapterRow, AdapterTensor, MetricsRow, OutcomeKey } from './db.ts';
export { DB_VERSION } from './db.ts';
export { StoreError, type StoreErrorCode } from './errors.ts';
export * from './schema.ts';
export * from './turn.ts';
export { importFile, validateImport, type ImportFormat, type ImportTarget, type ValidateOptions, type ValidationReport } from './importer.ts';
export { EXPORT_FORMATS, encodeExport, isExportFormat, isPairFormat, noPairsReason, type ExportFormat, type PairingSummary } from './formats/index.ts';
export { readLines, textSource, collectText, type ByteSource, type LineEvent } from './formats/lines.ts';
export type { LineIssue } from './formats/turnwise.ts';
export { playedRecord, cliRunRecord, type PlayedMeta } from './played.ts';
