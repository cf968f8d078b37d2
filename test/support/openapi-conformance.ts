import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/*
 * Checks a live response against the served OpenAPI document: the operation declares its status, the
 * content type is one it declares, the body matches that media type's schema (JSON Schema 2020-12, as
 * OpenAPI 3.1 uses), a refusal's `reason` is one the operation declares for its status (`x-reasons`,
 * from the route table), and every header it declares required is present and matches its schema. The
 * test harness runs every response of the HTTP suite through it.
 */

type Json = any

export interface ResponseToCheck {
  method: string
  /** The request's path, without the query. */
  path: string
  status: number
  headers: Headers
  /** The body as received (empty for none). */
  text: string
}

/** What the check found: `skipped` for a path or method the document does not describe (e.g. `/docs`). */
export type Verdict = { kind: 'checked'; operation: string; problems: string[] } | { kind: 'skipped' }

interface PathTemplate {
  template: string
  pattern: RegExp
  literalSegments: number
}

export class OpenApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  private readonly templates: PathTemplate[]
  private readonly validators = new Map<string, ValidateFunction>()

  constructor(private readonly doc: Json) {
    addFormats.default(this.ajv)
    this.templates = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`,
      ),
      literalSegments: template.split('/').filter((s) => s && !s.startsWith('{')).length,
    }))
  }

  /** The path template an actual path matches; a literal segment wins over a parameter, as in the router. */
  templateOf(path: string): string | undefined {
    const matches = this.templates.filter((t) => t.pattern.test(path))
    matches.sort((a, b) => b.literalSegments - a.literalSegments)
    return matches[0]?.template
  }

  check(response: ResponseToCheck): Verdict {
    const template = this.templateOf(response.path)
    const method = response.method.toLowerCase()
    const operation = template === undefined ? undefined : this.doc.paths[template][method]
    if (!operation) return { kind: 'skipped' }
    const name = `${response.method.toUpperCase()} ${template} → ${response.status}`
    const problems: string[] = []
    const declared = operation.responses[String(response.status)] ?? operation.responses.default
    if (!declared) {
      return { kind: 'checked', operation: name, problems: [`status ${response.status} is not declared`] }
    }
    const answer = this.resolve(declared)

    for (const [header, declaration] of Object.entries<Json>(answer.headers ?? {})) {
      const spec = this.resolve(declaration)
      const value = response.headers.get(header)
      if (value === null) {
        if (spec.required) problems.push(`required header ${header} is missing`)
        continue
      }
      const parsed = spec.schema?.type === 'integer' || spec.schema?.type === 'number' ? Number(value) : value
      const validate = this.validator(`${name} header ${header}`, spec.schema ?? {})
      if (!validate(parsed))
        problems.push(`header ${header}: ${value} ${this.ajv.errorsText(validate.errors)}`)
    }

    const contentType = response.headers.get('content-type')?.split(';')[0]?.trim()
    const media = answer.content as Record<string, Json> | undefined
    if (!media || Object.keys(media).length === 0) {
      if (response.text !== '') problems.push('a body was sent where none is declared')
      return { kind: 'checked', operation: name, problems }
    }
    if (!contentType || !media[contentType]) {
      problems.push(`content type ${contentType} is not one of ${Object.keys(media).join(', ')}`)
      return { kind: 'checked', operation: name, problems }
    }
    const schema = media[contentType].schema
    if (schema && contentType.endsWith('json')) {
      let body: unknown
      try {
        body = JSON.parse(response.text)
      } catch {
        problems.push('the body is not JSON')
        return { kind: 'checked', operation: name, problems }
      }
      const validate = this.validator(`${name} ${contentType}`, schema)
      if (!validate(body)) problems.push(`body: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`)
      // A refusal carries a reason its operation declares for that status (`x-reasons`).
      const reason = (body as { reason?: unknown } | null)?.reason
      const declaredReasons: string[] | undefined = answer['x-reasons']
      if (response.status >= 400 && typeof reason === 'string' && declaredReasons !== undefined) {
        if (!declaredReasons.includes(reason)) {
          problems.push(
            `reason ${reason} is not one the operation declares for ${response.status} (${declaredReasons.join(', ')})`,
          )
        }
      }
    }
    return { kind: 'checked', operation: name, problems }
  }

  /** Follows a local `$ref` (`#/components/...`). */
  private resolve(node: Json): Json {
    if (!node?.$ref) return node
    return (node.$ref as string)
      .slice(2)
      .split('/')
      .reduce((at: Json, key) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc)
  }

  /** A compiled schema; `#/components/...` references inside it resolve against the document. */
  private validator(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key)
    if (!validate) {
      validate = this.ajv.compile({ ...schema, components: this.doc.components })
      this.validators.set(key, validate)
    }
    return validate
  }
}
