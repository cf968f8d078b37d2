import type { ComponentChildren, TargetedSubmitEvent } from 'preact'
import { useRef, useState } from 'preact/hooks'
import { type Answer, call, type Problem } from './api.js'
import type { Method } from './access.js'
import { useCan } from './session.js'
import { ProblemAlert, problemOf } from './ui.js'

/*
 * A write control: shown only to a key whose roles allow the operation (by the route table), it opens a
 * dialog that says what will happen and asks for what the operation needs, then calls the API. A
 * refusal stays in the dialog as an alert saying why.
 */

export interface ActionField {
  name: string
  label: string
  type?: 'text' | 'number' | 'datetime-local' | 'url' | 'checkboxes'
  required?: boolean
  options?: readonly string[]
  hint?: string
  defaultValue?: string
}

export type Values = Record<string, string | string[]>

export function ActionButton(props: {
  /** The button's text: what a person names it. */
  label: string
  /** The operation, as the route table declares it. */
  operation: { method: Method; path: string }
  /** The request: its method and concrete path, and the body made of the dialog's values. */
  request: (values: Values) => { path: string; body?: unknown }
  title: string
  description?: ComponentChildren
  fields?: ActionField[]
  submitLabel: string
  danger?: boolean
  onDone: (answer: Answer<unknown>) => void
}) {
  const can = useCan()
  const dialog = useRef<HTMLDialogElement>(null)
  const [problem, setProblem] = useState<Problem>()
  const [busy, setBusy] = useState(false)
  const uid = useRef(`action-${Math.random().toString(36).slice(2, 10)}`)
  const { method, path } = props.operation
  // A key without the role gets no control at all, rather than one that fails.
  if (!can(method, path)) return null

  const open = () => {
    setProblem(undefined)
    dialog.current?.showModal()
  }
  const submit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const data = new FormData(form)
    const values: Values = {}
    for (const field of props.fields ?? []) {
      values[field.name] =
        field.type === 'checkboxes'
          ? data.getAll(field.name).map(String)
          : String(data.get(field.name) ?? '').trim()
    }
    setBusy(true)
    setProblem(undefined)
    try {
      const request = props.request(values)
      const verb = method.toUpperCase() as 'POST' | 'PUT' | 'PATCH' | 'DELETE'
      const answer = await call(verb, request.path, { body: request.body })
      dialog.current?.close()
      form.reset()
      props.onDone(answer)
    } catch (error) {
      setProblem(problemOf(error))
    } finally {
      setBusy(false)
    }
  }
  const id = uid.current
  return (
    <>
      <button type="button" class={props.danger ? 'danger' : undefined} onClick={open}>
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`}>
        <form method="dialog" onSubmit={submit}>
          <h2 id={`${id}-title`}>{props.title}</h2>
          {props.description ? <div class="dialog-text">{props.description}</div> : null}
          {(props.fields ?? []).map((field) => (
            <FieldInput key={field.name} id={`${id}-${field.name}`} field={field} />
          ))}
          <ProblemAlert problem={problem} />
          <div class="dialog-buttons">
            <button type="submit" class={props.danger ? 'danger' : 'primary'} disabled={busy}>
              {busy ? 'Working…' : props.submitLabel}
            </button>
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </>
  )
}

function FieldInput(props: { id: string; field: ActionField }) {
  const { id, field } = props
  const hint = field.hint ? (
    <p class="hint" id={`${id}-hint`}>
      {field.hint}
    </p>
  ) : null
  if (field.type === 'checkboxes') {
    return (
      <fieldset class="field">
        <legend>{field.label}</legend>
        {hint}
        <div class="checks">
          {(field.options ?? []).map((option) => (
            <label key={option}>
              <input
                type="checkbox"
                name={field.name}
                value={option}
                defaultChecked={option === field.defaultValue}
              />{' '}
              {option}
            </label>
          ))}
        </div>
      </fieldset>
    )
  }
  return (
    <div class="field">
      <label for={id}>{field.label}</label>
      {hint}
      {field.options ? (
        <select id={id} name={field.name} required={field.required}>
          {field.options.map((o) => (
            // defaultSelected (a property Preact sets, absent from its JSX types): the choice shown first and
            // the one a reset form comes back to; a select has no defaultValue.
            <option key={o} value={o} {...({ defaultSelected: o === field.defaultValue } as object)}>
              {o}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          name={field.name}
          type={(field.type ?? 'text') as 'text'}
          required={field.required}
          defaultValue={field.defaultValue}
          aria-describedby={field.hint ? `${id}-hint` : undefined}
          autocomplete="off"
        />
      )}
    </div>
  )
}
