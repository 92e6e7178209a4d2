/**
 * Finds every error text the source can produce, for the test that keeps the errors catalogue
 * complete (error-codes.test.ts): the messages of `new DomainError(kind, message)`, of
 * `new TRPCError({ message })`, of the server's own `{ success: false, error }` answers and
 * `statusCode` errors, and every message of the shared zod schemas. A message is a pattern:
 * literal text with `WILDCARD` where a template literal's `${...}` (or a value not known in the
 * source) goes. Names are followed to their `const` and to the functions that build the text.
 * Node only (reads files; TypeScript's parser): tests import it, the app never does.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const WILDCARD = '\u0000';

export interface ErrorSource {
  /** The text, `WILDCARD` where it varies. */
  pattern: string;
  /** file:line of the site that throws or answers it. */
  at: string;
  /** The HTTP status it is answered with, where the site names it. */
  status?: number;
}

/** Folders whose texts reach an API answer or a form. */
export const ERROR_SOURCE_DIRS = ['packages/api/src', 'apps/server/src', 'packages/auth/src', 'packages/core/src'];

function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) {
      // The catalogues translate these texts; the scripts are command-line tools, not API answers.
      if (name === 'i18n' || name === 'scripts' || name === 'node_modules') continue;
      out.push(...sourceFiles(root, path));
    } else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** zod's check methods whose string argument (or `{ message }`/`{ error }`) is a message. */
const ZOD_MESSAGE_METHODS = new Set([
  'min',
  'max',
  'length',
  'regex',
  'refine',
  'email',
  'url',
  'int',
  'positive',
  'nonnegative',
  'negative',
  'nonpositive',
  'gt',
  'gte',
  'lt',
  'lte',
  'multipleOf',
  'startsWith',
  'endsWith',
  'includes',
  'uuid',
  'datetime',
  'iso',
  'string',
  'number',
  'boolean',
  'enum',
  'literal',
  'array',
  'object',
  'strictObject',
  'date',
  'bigint',
  'nonempty',
  'safe',
  'finite',
  'ipv4',
  'ipv6',
  'cidrv4',
  'cidrv6',
  'uppercase',
  'lowercase',
]);

interface Decl {
  file: ts.SourceFile;
  node: ts.Node;
}

/** A domain or tRPC error kind, or a number, as the HTTP status it is answered with. */
const STATUS_OF_KIND: Record<string, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};
function statusOf(expr: ts.Expression | undefined): number | undefined {
  if (!expr) return undefined;
  if (ts.isNumericLiteral(expr)) return Number(expr.text);
  if (ts.isStringLiteral(expr)) return STATUS_OF_KIND[expr.text];
  return undefined;
}

export function findErrorSources(root: string, showNames = false): { sources: ErrorSource[]; unresolved: string[] } {
  const files = ERROR_SOURCE_DIRS.flatMap((d) => sourceFiles(root, d)).map((path) =>
    ts.createSourceFile(
      path,
      readFileSync(join(root, path), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
      path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
    ),
  );
  // Every named const and function, by name: a message's name is followed to what it holds.
  const decls = new Map<string, Decl[]>();
  const add = (name: string, d: Decl) => decls.set(name, [...(decls.get(name) ?? []), d]);
  for (const file of files) {
    const visit = (node: ts.Node) => {
      // Only consts: a `let` may hold anything by the time it is read.
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const)
        add(node.name.text, { file, node: node.initializer });
      if (ts.isFunctionDeclaration(node) && node.name) add(node.name.text, { file, node });
      ts.forEachChild(node, visit);
    };
    visit(file);
  }

  const sources: ErrorSource[] = [];
  const unresolved: string[] = [];
  const where = (file: ts.SourceFile, node: ts.Node) => `${relative('.', file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;

  /** The texts a function can return (its return statements, or an arrow's body). */
  function returned(fn: ts.Node): ts.Expression[] {
    if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && !ts.isBlock(fn.body)) return [fn.body];
    const out: ts.Expression[] = [];
    const body = (fn as ts.FunctionLikeDeclaration).body;
    const visit = (n: ts.Node) => {
      // `return null`: no message on that path.
      if (ts.isReturnStatement(n) && n.expression && n.expression.kind !== ts.SyntaxKind.NullKeyword) out.push(n.expression);
      if (n !== body && ts.isFunctionLike(n)) return;
      ts.forEachChild(n, visit);
    };
    if (body) visit(body);
    return out;
  }

  function resolveName(name: string, file: ts.SourceFile): Decl[] {
    const all = decls.get(name) ?? [];
    const own = all.filter((d) => d.file === file);
    return own.length ? own : all;
  }

  /** The patterns an expression can evaluate to; `null` when it cannot be followed. */
  function patterns(expr: ts.Expression, file: ts.SourceFile, depth = 0): string[] | null {
    if (depth > 8) return null;
    while (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isSatisfiesExpression(expr) || ts.isNonNullExpression(expr))
      expr = expr.expression;
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return [expr.text];
    if (ts.isTemplateExpression(expr)) {
      // Each `${...}` part: a const string inlined, anything else a wildcard.
      let out = [expr.head.text];
      for (const span of expr.templateSpans) {
        // A const, or a choice between literals (`code${many ? 's' : ''}`), is spelt out; anything else varies.
        const inner = ts.isIdentifier(span.expression) || ts.isConditionalExpression(span.expression) ? patterns(span.expression, file, depth + 1) : null;
        const spelt = inner && (ts.isIdentifier(span.expression) ? inner.length === 1 : inner.length <= 2) && inner.every((i) => !i.includes(WILDCARD));
        const parts = spelt ? inner : [WILDCARD + (showNames ? `{${span.expression.getText(file)}}` : '')];
        out = out.flatMap((o) => parts.map((p) => o + p + span.literal.text));
      }
      return out;
    }
    if (ts.isConditionalExpression(expr)) return merge(patterns(expr.whenTrue, file, depth + 1), patterns(expr.whenFalse, file, depth + 1));
    if (
      ts.isBinaryExpression(expr) &&
      (expr.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || expr.operatorToken.kind === ts.SyntaxKind.BarBarToken)
    )
      return merge(patterns(expr.left, file, depth + 1), patterns(expr.right, file, depth + 1));
    if (ts.isArrowFunction(expr) || ts.isFunctionExpression(expr)) return mergeAll(returned(expr).map((e) => patterns(e, file, depth + 1)));
    if (ts.isIdentifier(expr)) {
      const found = resolveName(expr.text, file);
      if (!found.length) return null;
      return mergeAll(
        found.map((d) => (ts.isFunctionDeclaration(d.node) || ts.isArrowFunction(d.node) ? [WILDCARD] : patterns(d.node as ts.Expression, d.file, depth + 1))),
      );
    }
    if (expr.kind === ts.SyntaxKind.NullKeyword) return [];
    if (ts.isAwaitExpression(expr)) return patterns(expr.expression, file, depth + 1);
    if (ts.isPropertyAccessExpression(expr) && ts.isIdentifier(expr.expression) && expr.name.text !== 'message') {
      const name = expr.name.text;
      const tables = resolveName(expr.expression.text, file).map((d) => d.node);
      return mergeAll(tables.map((t) => (ts.isObjectLiteralExpression(t) && propertyOf(t, name) ? patterns(propertyOf(t, name)!, file, depth + 1) : null)));
    }
    // A table of messages (`MESSAGES[status]`): every text it holds.
    if (ts.isElementAccessExpression(expr) && ts.isIdentifier(expr.expression)) {
      const tables = resolveName(expr.expression.text, file).map((d) => d.node);
      return mergeAll(
        tables.map((t) =>
          ts.isObjectLiteralExpression(t)
            ? mergeAll(t.properties.map((p) => (ts.isPropertyAssignment(p) ? patterns(p.initializer, file, depth + 1) : null)))
            : null,
        ),
      );
    }
    // `problem.message`, `problem` being what a function returned: the `message` of the objects it returns.
    if (ts.isPropertyAccessExpression(expr) && expr.name.text === 'message' && ts.isIdentifier(expr.expression)) {
      const made = resolveName(expr.expression.text, file).map((d) => d.node);
      return mergeAll(
        made.map((m) => {
          while (ts.isAwaitExpression(m)) m = m.expression;
          if (!ts.isCallExpression(m) || !ts.isIdentifier(m.expression)) return null;
          const fns = resolveName(m.expression.text, file).filter((d) => ts.isFunctionLike(d.node));
          const objects = fns.flatMap((d) => returned(d.node).map((e) => ({ e, file: d.file })));
          return mergeAll(
            objects.map(({ e, file: f }) => {
              const m2 = ts.isObjectLiteralExpression(e) ? propertyOf(e, 'message') : undefined;
              return m2 ? patterns(m2, f, depth + 1) : null;
            }),
          );
        }),
      );
    }
    if (ts.isCallExpression(expr) && ts.isIdentifier(expr.expression)) {
      const found = resolveName(expr.expression.text, file).filter((d) => ts.isFunctionLike(d.node));
      if (!found.length) return null;
      return mergeAll(found.flatMap((d) => returned(d.node).map((e) => patterns(e, d.file, depth + 1))));
    }
    return null;
  }

  const merge = (a: string[] | null, b: string[] | null) => (a && b ? [...a, ...b] : null);
  const mergeAll = (xs: (string[] | null)[]) => (xs.length && xs.every(Boolean) ? xs.flatMap((x) => x!) : null);

  function record(expr: ts.Expression, file: ts.SourceFile, opts: { strict: boolean; status?: number | undefined }) {
    const found = patterns(expr, file);
    if (found) {
      for (const pattern of found)
        if (pattern.replaceAll(WILDCARD, '').trim()) sources.push({ pattern, at: where(file, expr), ...(opts.status ? { status: opts.status } : {}) });
    } else if (opts.strict) unresolved.push(`${where(file, expr)}: ${expr.getText(file).slice(0, 80)}`);
  }

  const propertyOf = (obj: ts.ObjectLiteralExpression, name: string) =>
    obj.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === name)?.initializer;

  for (const file of files) {
    const isSchema = /packages\/core\/src\/(schemas\/|constants\.ts)/.test(file.fileName.replaceAll('\\', '/'));
    const visit = (node: ts.Node) => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) {
        const args = node.arguments ?? [];
        if (node.expression.text === 'DomainError' && args[1]) record(args[1], file, { strict: true, status: statusOf(args[0]) });
        if (node.expression.text === 'TRPCError' && args[0]) {
          // `new TRPCError(signedIn ? { ... } : { ... })`: each branch's message.
          const options = ts.isConditionalExpression(args[0]) ? [args[0].whenTrue, args[0].whenFalse] : [args[0]];
          for (const o of options) {
            const m = ts.isObjectLiteralExpression(o) ? propertyOf(o, 'message') : undefined;
            const code = ts.isObjectLiteralExpression(o) ? propertyOf(o, 'code') : undefined;
            if (m) record(m, file, { strict: true, status: statusOf(code) });
          }
        }
        // Errors with a status for the server's error handler.
        if (node.expression.text === 'Error' && args[0] && ts.isCallExpression(node.parent) && node.parent.getText(file).includes('statusCode'))
          record(args[0], file, { strict: true });
      }
      // Refusals the context notes for the procedures' guards (`ctx.apiKeyRefused = ...`).
      if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isPropertyAccessExpression(node.left) &&
        node.left.name.text.endsWith('Refused')
      )
        record(node.right, file, { strict: true });
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'errorBody' && node.arguments[1])
        record(node.arguments[1], file, { strict: true, status: statusOf(node.arguments[0]) });
      // The server's own answers: `{ success: false, error }`, and the answers built from a status and a text.
      if (ts.isObjectLiteralExpression(node)) {
        const success = propertyOf(node, 'success');
        const error = propertyOf(node, 'error');
        if (success && success.kind === ts.SyntaxKind.FalseKeyword && error) record(error, file, { strict: false });
      }
      if (isSchema) {
        // `{ message: ... }` / `{ error: ... }` options and issues, and the message arguments of checks and of the fields' builders.
        if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && (node.name.text === 'message' || node.name.text === 'error'))
          record(node.initializer, file, { strict: false, status: 400 });
        if (ts.isCallExpression(node)) {
          const callee = node.expression;
          const method = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : '';
          const isCheck = ZOD_MESSAGE_METHODS.has(method) || (ts.isIdentifier(callee) && /^[a-z]\w*$/.test(method) && method !== 'describe');
          if (isCheck)
            for (const arg of node.arguments)
              if (ts.isStringLiteral(arg) || ts.isTemplateExpression(arg) || ts.isNoSubstitutionTemplateLiteral(arg))
                record(arg, file, { strict: false, status: 400 });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return { sources, unresolved };
}
