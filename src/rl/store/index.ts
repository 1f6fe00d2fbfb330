// The trajectory store's public surface: the IndexedDB store, the portable schema, import validation
// and the export formats. UI state classes and the rollout import from here.
export { TrajectoryStore } from './store.ts';
export type * from './api.ts';
export type { EpisodeFilter, EpisodeSummary, PageCursor } from './queries.ts';
export type { StorageInfo } from './session.ts';
export * from './schema.ts';
export * from './turn.ts';
export { importFile, type ImportFormat, type ValidationReport } from './importer.ts';
export { EXPORT_FORMATS, encodeExport, isPairFormat, noPairsReason, type ExportFormat, type PairingSummary } from './formats/index.ts';
export { readLines, textSource } from './formats/lines.ts';
export { playedRecord, cliRunRecord } from './played.ts';
