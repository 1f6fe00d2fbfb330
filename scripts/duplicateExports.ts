// `npm test`'s duplicate-exports step: no exported name is defined in two files of src/, so a name
// found in an import means one thing (issue 44). Re-exports (`export { x } from`, `export *`) are not
// definitions; a `.svelte` file's module script is read like a .ts file. Prints each name defined
// twice with its files, and exits 1 when there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return files(p);
    return /\.(ts|svelte)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The module script of a .svelte file (`<script module>` or `context="module"`), else nothing: instance scripts export props. */
function moduleScript(text: string): string {
  const m = /<script\b[^>]*\b(module|context=["']module["'])[^>]*>([\s\S]*?)<\/script>/.exec(text);
  return m ? m[2] : '';
}

const hasExport = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** Names a file defines and exports: declarations with `export`, and `export { local }` of its own declarations. */
function definedExports(path: string): string[] {
  const raw = readFileSync(path, 'utf8');
  const text = path.endsWith('.svelte') ? moduleScript(raw) : raw;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const imported = new Set<string>();
  for (const s of sf.statements) {
    const clause = ts.isImportDeclaration(s) ? s.importClause : undefined;
    if (clause?.name) imported.add(clause.name.text);
    if (clause?.namedBindings) {
      if (ts.isNamespaceImport(clause.namedBindings)) imported.add(clause.namedBindings.name.text);
      else for (const e of clause.namedBindings.elements) imported.add(e.name.text);
    }
  }
  for (const s of sf.statements) {
    if (ts.isExportDeclaration(s)) {
      // `export { x }` of a local declaration defines x here; of an imported binding, it re-exports it
      if (!s.moduleSpecifier && s.exportClause && ts.isNamedExports(s.exportClause)) {
        for (const e of s.exportClause.elements) if (!imported.has((e.propertyName ?? e.name).text)) out.push(e.name.text);
      }
      continue;
    }
    if (!hasExport(s)) continue;
    if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) out.push(d.name.text);
    } else if (
      (ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s) || ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isEnumDeclaration(s)) &&
      s.name
    ) {
      out.push(s.name.text);
    }
  }
  return [...new Set(out)];
}

const where = new Map<string, string[]>();
for (const f of files(join(ROOT, 'src'))) {
  for (const name of definedExports(f)) where.set(name, [...(where.get(name) ?? []), relative(ROOT, f)]);
}
const twice = [...where].filter(([, fs]) => fs.length > 1).sort(([a], [b]) => a.localeCompare(b));
for (const [name, fs] of twice) process.stdout.write(`${name}: ${fs.join(', ')}\n`);
process.stdout.write(
  twice.length ? `${twice.length} exported names are defined in more than one file of src/\n` : 'every exported name in src/ is defined in one file\n',
);
process.exitCode = twice.length ? 1 : 0;
