import { createElement, type ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { CONSOLE_BASE } from '../contract/console-constants.js'

/*
 * Every page has a URL (`/console/ui/<page>[/<id>][?filters]`): links push it on the history, so deep
 * links, reloads and the back button work as on any site.
 */

const listeners = new Set<() => void>()
const changed = () => {
  for (const listener of listeners) listener()
}
window.addEventListener('popstate', changed)

/** The console URL of a page: `href('transfers', 'tx_…')`, `href('audit', undefined, { action })`. */
export function href(page: string, id?: string | number, query?: Record<string, string | undefined>): string {
  let path = `${CONSOLE_BASE}/${page}`
  if (id !== undefined) path += `/${encodeURIComponent(String(id))}`
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) if (value) params.set(name, value)
  const text = params.toString()
  return text === '' ? path : `${path}?${text}`
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  window.scrollTo(0, 0)
  changed()
}

export interface Location {
  /** The page's slug ('' for the overview). */
  page: string
  /** The record's id, for a record's page. */
  id: string | undefined
  query: URLSearchParams
  /** The whole URL, for keys of components that must start afresh on each page. */
  url: string
}

export function currentLocation(): Location {
  const rest = location.pathname.startsWith(`${CONSOLE_BASE}/`)
    ? location.pathname.slice(CONSOLE_BASE.length + 1)
    : ''
  const [page = '', id] = rest.split('/')
  return {
    page,
    id: id === undefined || id === '' ? undefined : decodeURIComponent(id),
    query: new URLSearchParams(location.search),
    url: location.pathname + location.search,
  }
}

/** The current location, re-rendering on every navigation. */
export function useLocation(): Location {
  const [, setTick] = useState(0)
  useEffect(() => {
    const listener = () => setTick((n) => n + 1)
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
    }
  }, [])
  return currentLocation()
}

/** A link inside the console: a real `<a href>` (open in a new tab works), followed without a reload. */
export function Link(props: {
  to: string
  children: ComponentChildren
  class?: string
  'aria-current'?: 'page' | undefined
}) {
  return createElement(
    'a',
    {
      href: props.to,
      class: props.class,
      'aria-current': props['aria-current'],
      onClick: (event: MouseEvent) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
        event.preventDefault()
        navigate(props.to)
      },
    },
    props.children,
  )
}
