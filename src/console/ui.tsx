import type { ComponentChildren, TargetedSubmitEvent } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiProblem, get, type Problem, type Query } from './api.js'
import { href, Link, navigate } from './router.js'

/*
 * The console's building blocks: a page with its heading, refusals in an alert, tables whose rows open
 * their record, cursor paging, filters kept in the URL, ids shown whole.
 */

/** A page: its heading names it and takes the focus when the page opens (for keyboard and screen readers). */
export function Page(props: { title: string; lead?: ComponentChildren; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${props.title} · rwa console`
    heading.current?.focus({ preventScroll: true })
  }, [props.title])
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {props.title}
      </h1>
      {props.lead ? <p class="lead">{props.lead}</p> : null}
      {props.children}
    </>
  )
}

export function Section(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={props.title}>
      <div class="card-head">
        <h2>{props.title}</h2>
        {props.actions ? <div class="actions">{props.actions}</div> : null}
      </div>
      {props.children}
    </section>
  )
}

/** A refusal or failure, saying why: the API's own words, its reason and the fields it names. */
export function ProblemAlert(props: { problem: Problem | undefined; title?: string }) {
  const { problem } = props
  if (!problem) return null
  return (
    <div role="alert" class="alert">
      <p>
        <strong>{props.title ?? 'Refused'}</strong>{' '}
        {problem.status > 0 ? (
          <span class="muted">
            ({problem.status}
            {problem.reason ? ` ${problem.reason}` : ''})
          </span>
        ) : null}
      </p>
      <p>{problem.detail}</p>
      {problem.errors && problem.errors.length > 0 ? (
        <ul>
          {problem.errors.map((e) => (
            <li key={e.path}>
              <code>{e.path}</code>: {e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

/** A message of success, read out politely. */
export function Notice(props: { children: ComponentChildren }) {
  return (
    <div role="status" class="notice">
      {props.children}
    </div>
  )
}

export const problemOf = (error: unknown): Problem =>
  error instanceof ApiProblem
    ? error.problem
    : { status: 0, code: 'unexpected', detail: error instanceof Error ? error.message : String(error) }

/** An id, whole, as text that wraps rather than being cut. */
export const Id = (props: { value: string | null | undefined }) =>
  props.value ? <code class="id">{props.value}</code> : <span class="muted">—</span>

/** An id that opens its record's page. */
export const IdLink = (props: { page: string; id: string | null | undefined }) =>
  props.id ? (
    <Link to={href(props.page, props.id)} class="id-link">
      <code class="id">{props.id}</code>
    </Link>
  ) : (
    <span class="muted">—</span>
  )

/** A timestamp as the API gives it (UTC), whole. */
export const Time = (props: { at: string | null | undefined }) =>
  props.at ? (
    <time dateTime={props.at}>{props.at.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z')}</time>
  ) : (
    <span class="muted">—</span>
  )

export const Yes = (props: { value: boolean; yes?: string; no?: string }) =>
  props.value ? (
    <span class="pill ok">{props.yes ?? 'yes'}</span>
  ) : (
    <span class="pill">{props.no ?? 'no'}</span>
  )

const STATUS_TONE: Record<string, string> = {
  active: 'ok',
  approved: 'ok',
  enabled: 'ok',
  verified: 'ok',
  pending: 'warn',
  paused: 'warn',
  suspended: 'warn',
  forced: 'warn',
  rejected: 'bad',
  revoked: 'bad',
  failed: 'bad',
  disabled: 'bad',
  expired: 'muted',
  cancelled: 'muted',
  removed: 'muted',
}

export const Status = (props: { value: string }) => (
  <span class={`pill ${STATUS_TONE[props.value] ?? ''}`}>{props.value}</span>
)

/** Fields of a record as a definition list. */
export function Fields(props: { rows: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="fields">
      {props.rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value ?? <span class="muted">—</span>}</dd>
        </div>
      ))}
    </dl>
  )
}

/** A JSON value shown as it is (a body, a change, evidence). */
export const Json = (props: { value: unknown }) => (
  // Focusable: a long value scrolls, and a keyboard must be able to scroll it too.
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard.
  <pre class="json" tabIndex={0}>
    {JSON.stringify(props.value, null, 2)}
  </pre>
)

/** An object's fields on a line each, `name: value`, ids whole (a history event's details). */
export function Details(props: { value: Record<string, unknown> }) {
  return (
    <ul class="details">
      {Object.entries(props.value).map(([name, value]) => (
        <li key={name}>
          <span class="muted">{name}:</span>{' '}
          {typeof value === 'string' ? <code class="id">{value}</code> : <code>{JSON.stringify(value)}</code>}
        </li>
      ))}
    </ul>
  )
}

export interface Column<T> {
  title: string
  cell: (row: T) => ComponentChildren
  /** Narrow screens keep the first columns and those marked `keep`. */
  class?: string
}

/**
 * A table whose every row opens its record's page: the row's first cell holds the link (the keyboard's
 * way in), and a click anywhere on the row follows it.
 */
export function Table<T>(props: {
  caption: string
  columns: Array<Column<T>>
  rows: T[]
  rowKey: (row: T) => string
  rowHref?: (row: T) => string
  empty?: string
}) {
  if (props.rows.length === 0) return <p class="empty">{props.empty ?? 'Nothing here yet.'}</p>
  const open = (row: T) => (event: MouseEvent) => {
    if (!props.rowHref) return
    const target = event.target as HTMLElement
    if (target.closest('a, button, input, select, textarea, summary, label')) return
    navigate(props.rowHref(row))
  }
  return (
    // A region the keyboard can scroll, when a narrow screen makes the table wider than itself.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard.
    <div class="table-wrap" tabIndex={0}>
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" class={c.class} key={c.title}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} class={props.rowHref ? 'linked' : undefined} onClick={open(row)}>
              {props.columns.map((c) => (
                // On a phone each row is a card, each cell labelled by its column (console.css).
                <td class={c.class} key={c.title} data-label={c.title}>
                  <div class="cell">{c.cell(row)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** The API's cursor paging: the next page's URL carries its cursor, so the back button goes back a page. */
export function Pager(props: {
  shown: number
  total: number
  nextCursor: string | null
  cursorParam?: string
  noun: string
}) {
  const param = props.cursorParam ?? 'cursor'
  const here = new URL(location.href)
  const at = (cursor: string | null) => {
    const url = new URL(here)
    if (cursor) url.searchParams.set(param, cursor)
    else url.searchParams.delete(param)
    return url.pathname + url.search
  }
  const onFirst = !here.searchParams.has(param)
  return (
    <nav class="pager" aria-label={`Pages of ${props.noun}`}>
      <span>
        {props.shown} shown of {props.total} {props.noun}
      </span>
      {onFirst ? null : <Link to={at(null)}>First page</Link>}
      {props.nextCursor ? <Link to={at(props.nextCursor)}>Next page</Link> : null}
    </nav>
  )
}

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'error'; problem: Problem }
  | { state: 'done'; data: T }

/** GETs `path` with `query`, again whenever they change or `reload()` is called. */
export function useGet<T>(path: string | null, query?: Query): Loaded<T> & { reload: () => void } {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' })
  const [tick, setTick] = useState(0)
  const key = path === null ? '' : `${path}?${JSON.stringify(query ?? {})}`
  useEffect(() => {
    if (path === null) return
    let live = true
    setLoaded((previous) => (previous.state === 'done' && tick > 0 ? previous : { state: 'loading' }))
    get<T>(path, query).then(
      (data) => live && setLoaded({ state: 'done', data }),
      (error) => live && setLoaded({ state: 'error', problem: problemOf(error) }),
    )
    return () => {
      live = false
    }
  }, [key, tick])
  const reload = useCallback(() => setTick((n) => n + 1), [])
  return { ...loaded, reload }
}

/** What a loading or failed `useGet` shows; `null` once loaded. */
export function Pending(props: { loaded: Loaded<unknown> }) {
  if (props.loaded.state === 'loading')
    return (
      <p class="muted" aria-live="polite">
        Loading…
      </p>
    )
  if (props.loaded.state === 'error')
    return <ProblemAlert problem={props.loaded.problem} title="Could not load" />
  return null
}

/** Filters of a list, kept in the URL: submitting navigates to the same page with them (first page). */
export function Filters(props: {
  label: string
  /** The submit button's text (`Apply filters` unless given). */
  submit?: string
  fields: Array<{
    name: string
    label: string
    options?: readonly string[]
    placeholder?: string
    list?: readonly string[]
    type?: 'text' | 'datetime-local'
  }>
}) {
  const query = new URLSearchParams(location.search)
  const submit = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget)
    const params = new URLSearchParams()
    for (const field of props.fields) {
      const value = String(data.get(field.name) ?? '').trim()
      if (value === '') continue
      params.set(field.name, field.type === 'datetime-local' ? new Date(`${value}Z`).toISOString() : value)
    }
    const text = params.toString()
    navigate(text === '' ? location.pathname : `${location.pathname}?${text}`)
  }
  return (
    <form class="filters" aria-label={props.label} onSubmit={submit}>
      {props.fields.map((f) => {
        const id = `filter-${f.name}`
        const value = query.get(f.name) ?? ''
        return (
          <div class="field" key={`${f.name}:${value}`}>
            <label for={id}>{f.label}</label>
            {f.options ? (
              // Uncontrolled, as the text fields are (the field is keyed by its value in the URL): a
              // controlled value would undo a choice made while the list below was still loading.
              <select id={id} name={f.name}>
                <option value="">any</option>
                {f.options.map((o) => (
                  <option key={o} value={o} {...({ defaultSelected: o === value } as object)}>
                    {o}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                name={f.name}
                type={f.type ?? 'text'}
                defaultValue={f.type === 'datetime-local' && value ? value.slice(0, 16) : value}
                placeholder={f.placeholder}
                list={f.list ? `${id}-list` : undefined}
                autocomplete="off"
              />
            )}
            {f.list ? (
              <datalist id={`${id}-list`}>
                {f.list.map((o) => (
                  <option key={o} value={o} />
                ))}
              </datalist>
            ) : null}
          </div>
        )
      })}
      <div class="field submit">
        <button type="submit">{props.submit ?? 'Apply filters'}</button>
      </div>
    </form>
  )
}

/** The query of a list from the URL: its filters (those named) and its cursor. */
export function listQuery(names: readonly string[], limit = 25, cursorParam = 'cursor'): Query {
  const url = new URLSearchParams(location.search)
  const query: Query = { limit }
  for (const name of names) query[name] = url.get(name) ?? undefined
  query.cursor = url.get(cursorParam) ?? undefined
  return query
}
