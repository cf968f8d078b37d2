import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import { type Method, mayCall } from './access.js'

/** The signed-in session as the pages see it: who it is, and what its key may do. */
export interface SessionInfo {
  session_id: string
  key_id: string
  org_id: string
  roles: string[]
  expires_at: string
  /** GET /console/billing/keys/self: the key's name, tier and limits. */
  self: {
    name: string
    key_prefix: string
    tier: string
    admin: boolean
    limits: Record<string, number | 'unlimited'>
    trial_ends_at: string | null
    expires_at: string | null
  }
}

export const SessionContext = createContext<SessionInfo | null>(null)

export function useSession(): SessionInfo {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside a signed-in page')
  return session
}

/** Whether the signed-in key may call `method path` (a path template of the route table). */
export function useCan(): (method: Method, path: string) => boolean {
  const { roles } = useSession()
  return (method, path) => mayCall(roles, method, path)
}
