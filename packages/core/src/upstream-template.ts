/**
 * The grammar of an upstream's username and password templates: how a customer's line (location,
 * session, duration) is spelled for one provider. One module for the admin schema (validation),
 * the gateway (rendering every tunnel) and the server's upstream test, so all three agree.
 *
 *   text                  copied as written
 *   {name|filter|...}     a placeholder, its value passed through the filters left to right
 *   [ ... ]               an optional group, left out whole when a placeholder inside is empty
 *
 * Example: `acct-{country|lower}[-st-{state|name|lower|snake}][-sid-{sid}-for-{minutes}]`.
 * `{zip}`, `{asn}` and `{hard}` are empty unless the line asks for them (`~z`, `~a`, `<minutes>h`);
 * the filter `flag` writes nothing but keeps its group: `-sessid[_oneip{hard|flag}]-{sid}`; `not`
 * is its opposite, keeping its group only while the value is empty: `[_lifetime-{minutes}{hard|not}]`.
 */

export const TEMPLATE_PLACEHOLDERS = ['country', 'state', 'city', 'zip', 'asn', 'session', 'sid', 'minutes', 'seconds', 'hard', 'password'] as const;
export type TemplatePlaceholder = (typeof TEMPLATE_PLACEHOLDERS)[number];
export const TEMPLATE_FILTERS = ['name', 'lower', 'upper', 'snake', 'compact', 'plus', 'dot', 'flag', 'not'] as const;
export type TemplateFilter = (typeof TEMPLATE_FILTERS)[number];
/** Placeholders that are places: the only ones `name` applies to. */
const PLACES = new Set<TemplatePlaceholder>(['country', 'state', 'city']);

export type TemplateNode =
  { kind: 'text'; text: string } | { kind: 'slot'; name: TemplatePlaceholder; filters: TemplateFilter[] } | { kind: 'group'; nodes: TemplateNode[] };

export type TemplateKind = 'username' | 'password';

export class TemplateError extends Error {}

/**
 * Parses a template; throws a TemplateError naming the unknown placeholder or filter, the
 * unbalanced bracket, or `{password}` in a username template.
 */
export function parseTemplate(src: string, kind: TemplateKind): TemplateNode[] {
  let i = 0;
  const parseSeq = (inGroup: boolean): TemplateNode[] => {
    const nodes: TemplateNode[] = [];
    let text = '';
    const flush = () => {
      if (text) nodes.push({ kind: 'text', text });
      text = '';
    };
    while (i < src.length) {
      const ch = src[i]!;
      if (ch === '{') {
        const end = src.indexOf('}', i + 1);
        const open = src.indexOf('{', i + 1);
        if (end < 0 || (open >= 0 && open < end)) throw new TemplateError(`unbalanced '{' at position ${i + 1}`);
        flush();
        nodes.push(parseSlot(src.slice(i + 1, end), kind));
        i = end + 1;
      } else if (ch === '}') {
        throw new TemplateError(`unbalanced '}' at position ${i + 1}`);
      } else if (ch === '[') {
        const at = i;
        i++;
        flush();
        const inner = parseSeq(true);
        if (src[i] !== ']') throw new TemplateError(`unbalanced '[' at position ${at + 1}`);
        i++;
        nodes.push({ kind: 'group', nodes: inner });
      } else if (ch === ']') {
        if (inGroup) break;
        throw new TemplateError(`unbalanced ']' at position ${i + 1}`);
      } else {
        text += ch;
        i++;
      }
    }
    flush();
    return nodes;
  };
  return parseSeq(false);
}

function parseSlot(body: string, kind: TemplateKind): TemplateNode {
  const [rawName = '', ...rawFilters] = body.split('|').map((s) => s.trim());
  if (!(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(rawName)) throw new TemplateError(`unknown placeholder {${rawName}}`);
  const name = rawName as TemplatePlaceholder;
  if (name === 'password' && kind === 'username') throw new TemplateError('{password} is only allowed in the password template');
  const filters = rawFilters.map((f) => {
    if (!(TEMPLATE_FILTERS as readonly string[]).includes(f)) throw new TemplateError(`unknown filter '${f}' in {${body}}`);
    if (f === 'name' && !PLACES.has(name)) throw new TemplateError(`filter 'name' applies only to {country}, {state} or {city}, not {${name}}`);
    return f as TemplateFilter;
  });
  return { kind: 'slot', name, filters };
}

/** Why a template is refused, or null when it parses (for schemas: the message names the field). */
export function templateProblem(src: string, kind: TemplateKind): string | null {
  try {
    parseTemplate(src, kind);
    return null;
  } catch (err) {
    if (err instanceof TemplateError) return err.message;
    throw err;
  }
}

/** Does the template use this placeholder (optionally with this filter)? */
export function templateUses(nodes: readonly TemplateNode[], name: TemplatePlaceholder, filter?: TemplateFilter): boolean {
  return nodes.some((n) =>
    n.kind === 'group' ? templateUses(n.nodes, name, filter) : n.kind === 'slot' && n.name === name && (filter === undefined || n.filters.includes(filter)),
  );
}

/** Values for one tunnel; an absent or empty value is empty (its optional group vanishes). */
export type TemplateValues = Partial<Record<TemplatePlaceholder, string>>;

/** English names of our location codes; undefined when unknown (the code is then used as is). */
export interface PlaceNames {
  country(country: string): string | undefined;
  state(country: string, state: string): string | undefined;
  city(country: string, state: string, city: string): string | undefined;
}

/** The filters that change text (`name` looks a place up; `flag` and `not` only decide the group). */
type TextFilter = Exclude<TemplateFilter, 'name' | 'flag' | 'not'>;
const FILTERS: Record<TextFilter, (s: string) => string> = {
  lower: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
  snake: (s) => s.replace(/[\s.-]+/g, '_'),
  compact: (s) => s.replace(/[\s.'’-]+/g, ''),
  plus: (s) => s.replace(/ /g, '+'),
  dot: (s) => s.replace(/[\s.]+/g, '.'),
};

function placeName(name: TemplatePlaceholder, v: TemplateValues, names: PlaceNames | undefined): string | undefined {
  if (!names) return undefined;
  const { country = '', state = '', city = '' } = v;
  if (name === 'country') return names.country(country);
  if (name === 'state') return names.state(country, state);
  return names.city(country, state, city);
}

/**
 * The slot's text; null when its value is empty (a `flag` slot with a value writes '' and keeps its
 * group). A `not` slot turns that around: '' while the value is empty, null (group left out) when set.
 */
function renderSlot(node: Extract<TemplateNode, { kind: 'slot' }>, v: TemplateValues, names: PlaceNames | undefined): string | null {
  let out = v[node.name] ?? '';
  if (node.filters.includes('not')) return out ? null : '';
  if (!out) return null;
  for (const f of node.filters) out = f === 'flag' ? '' : f === 'name' ? (placeName(node.name, v, names) ?? out) : FILTERS[f as TextFilter](out);
  return out;
}

/** Renders nodes; `null` when a placeholder directly in this sequence is empty (its group vanishes). */
function renderSeq(nodes: readonly TemplateNode[], v: TemplateValues, names: PlaceNames | undefined, optional: boolean): string | null {
  let out = '';
  for (const n of nodes) {
    if (n.kind === 'text') out += n.text;
    else if (n.kind === 'group') out += renderSeq(n.nodes, v, names, true) ?? '';
    else {
      const s = renderSlot(n, v, names);
      if (s === null && optional) return null;
      out += s ?? '';
    }
  }
  return out;
}

export function renderTemplate(nodes: readonly TemplateNode[], values: TemplateValues, names?: PlaceNames): string {
  return renderSeq(nodes, values, names, false) ?? '';
}

/** An upstream's credentials as stored: templates, and the sealed password `{password}` stands for. */
export interface UpstreamTemplates {
  usernameTemplate: string;
  /** '' or absent: the password is sent as it is (as before templates had one). */
  passwordTemplate?: string | undefined;
  password: string;
  /** The provider's longest sticky session: a longer line is sent with this many minutes. Null or absent: none. */
  maxSessionMinutes?: number | null | undefined;
}

/** The minutes a line's session reaches the upstream with: its own, or the provider's longest where shorter. */
export const sessionMinutesFor = (durationMinutes: number, maxSessionMinutes: number | null | undefined): number =>
  maxSessionMinutes ? Math.min(durationMinutes, maxSessionMinutes) : durationMinutes;

/** One customer line as an upstream sees it. `durationMinutes` 0 is a rotating line. */
export interface UpstreamLine {
  location: { country: string; state?: string | undefined; city?: string | undefined; zip?: string | undefined; asn?: string | undefined };
  /** What `{session}` stands for (the line's token, or the default upstream's session id). */
  session: string;
  /** The upstream session id: 8 characters of [a-z0-9], '' for a rotating line. */
  sid: string;
  durationMinutes: number;
  /** A hard sticky line: `{hard}` is 1. */
  hard?: boolean | undefined;
}

const parsed = new Map<string, TemplateNode[] | null>();

/** Parsed once per template text; null for a template stored before the grammar that does not parse. */
function cachedParse(src: string, kind: TemplateKind): TemplateNode[] | null {
  const key = `${kind}\0${src}`;
  let nodes = parsed.get(key);
  if (nodes === undefined) {
    try {
      nodes = parseTemplate(src, kind);
    } catch {
      nodes = null;
    }
    if (parsed.size > 1000) parsed.clear();
    parsed.set(key, nodes);
  }
  return nodes;
}

/** Does either template spell a place by name (the dataset must then be loaded)? */
export function upstreamNeedsNames(up: UpstreamTemplates): boolean {
  return [cachedParse(up.usernameTemplate, 'username'), up.passwordTemplate ? cachedParse(up.passwordTemplate, 'password') : null].some(
    (n) => n !== null && TEMPLATE_PLACEHOLDERS.some((p) => templateUses(n, p, 'name')),
  );
}

/**
 * Does the upstream's username or password template use this placeholder? What a line may ask of
 * it: a ZIP, an ASN or a hard session goes only to upstreams that can carry it.
 */
export function upstreamUses(up: Pick<UpstreamTemplates, 'usernameTemplate' | 'passwordTemplate'>, name: TemplatePlaceholder): boolean {
  const used = (src: string, kind: TemplateKind) => {
    const nodes = cachedParse(src, kind);
    return nodes ? templateUses(nodes, name) : new RegExp(`\\{${name}[|}]`).test(src);
  };
  return used(up.usernameTemplate, 'username') || (!!up.passwordTemplate && used(up.passwordTemplate, 'password'));
}

/** What a line asks of its upstream beyond the place, as the refusal names it ('ZIP', 'ASN', 'hard sticky'). */
export const LINE_TARGETING = [
  { placeholder: 'zip', label: 'ZIP' },
  { placeholder: 'asn', label: 'ASN' },
  { placeholder: 'hard', label: 'hard sticky' },
] as const satisfies ReadonlyArray<{ placeholder: TemplatePlaceholder; label: string }>;

/** The placeholders this line needs its upstream to carry. */
export function lineNeeds(line: Pick<UpstreamLine, 'location' | 'hard'>): Array<(typeof LINE_TARGETING)[number]> {
  return LINE_TARGETING.filter((t) => (t.placeholder === 'hard' ? line.hard === true : !!line.location[t.placeholder]));
}

/** Can this upstream carry everything the line asks for? */
export function upstreamCarries(up: Pick<UpstreamTemplates, 'usernameTemplate' | 'passwordTemplate'>, line: Pick<UpstreamLine, 'location' | 'hard'>): boolean {
  return lineNeeds(line).every((t) => upstreamUses(up, t.placeholder));
}

/** The username and password one line reaches the upstream with. */
export function renderUpstreamCredentials(up: UpstreamTemplates, line: UpstreamLine, names?: PlaceNames): { username: string; password: string } {
  const sticky = line.durationMinutes > 0;
  // A provider ends a session at its own longest (or refuses a longer one): ask for what it gives.
  const minutes = sessionMinutesFor(line.durationMinutes, up.maxSessionMinutes);
  const values: TemplateValues = {
    country: line.location.country,
    state: line.location.state ?? '',
    city: line.location.city ?? '',
    zip: line.location.zip ?? '',
    asn: line.location.asn ?? '',
    hard: sticky && line.hard ? '1' : '',
    session: sticky ? line.session : '',
    sid: sticky ? line.sid : '',
    minutes: sticky ? String(minutes) : '',
    seconds: sticky ? String(minutes * 60) : '',
    password: up.password,
  };
  const render = (src: string, kind: TemplateKind) => {
    const nodes = cachedParse(src, kind);
    // A template saved before the grammar existed and not valid in it: filled as it was then.
    if (!nodes) return src.replace(/\{(country|state|city|session|minutes)\}/g, (_, k: TemplatePlaceholder) => values[k] ?? '');
    return renderTemplate(nodes, values, names);
  };
  return { username: render(up.usernameTemplate, 'username'), password: up.passwordTemplate ? render(up.passwordTemplate, 'password') : up.password };
}
