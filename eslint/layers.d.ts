// Types of eslint/layers.js for the TypeScript tests that import it.
import type { ESLint } from 'eslint';

export const LAYERS: string[];
export function violation(from: string, to: string): string | null;
export function packageViolation(from: string, name: string): string | null;
declare const plugin: ESLint.Plugin;
export default plugin;
