import { z } from 'zod'
import { defineOperation, jsonResponse } from './operation.js'
import { healthSchema, notReadySchema, readinessSchema } from './operations.js'

/** The OpenAPI tag of what operators and load balancers call: the probes and the metrics. */
export const operationsTags = ['operations'] as const

const METRICS_EXAMPLE = `# HELP rwa_http_requests_total HTTP requests answered, by method, route template and status
# TYPE rwa_http_requests_total counter
rwa_http_requests_total{method="GET",route="/console/rwa/tokens/{id}",status="200"} 1027
`

/** Operations: probes for load balancers (public, never rate limited) and metrics (admin key). */
export const operationsRoutes = {
  getHealth: defineOperation({
    operationId: 'getHealth',
    method: 'get',
    path: '/healthz',
    access: 'public',
    tags: operationsTags,
    summary: 'Liveness: the process answers (public, not rate limited)',
    description: 'Answers 200 as long as the process serves HTTP, also while it drains before shutting down.',
    response: jsonResponse(200, healthSchema, 'The process answers', { status: 'ok' }),
  }),
  getReadiness: defineOperation({
    operationId: 'getReadiness',
    method: 'get',
    path: '/readyz',
    access: 'public',
    tags: operationsTags,
    summary: 'Readiness: the instance may take traffic (public, not rate limited)',
    description:
      'Ready when the database answers, every migration is applied and Redis answers (when configured). ' +
      'From the first SIGTERM on it answers 503 (`shutdown`) while the server still serves requests, so a ' +
      'load balancer takes the instance out of rotation before it stops accepting connections.',
    response: jsonResponse(200, readinessSchema, 'Ready: every check passed', {
      status: 'ready',
      checks: [
        { name: 'database', ready: true },
        { name: 'migrations', ready: true },
      ],
    }),
    otherResponses: {
      503: {
        description: 'Not ready: problem details (`unavailable`) naming each check that failed',
        content: {
          'application/problem+json': {
            schema: notReadySchema,
            example: {
              type: 'urn:rwa:problem:unavailable',
              title: 'Service unavailable',
              status: 503,
              detail: 'Not ready: migrations (pending: 0002-governance)',
              code: 'unavailable',
              reason: 'not_ready',
              context: { failing: ['migrations'] },
              request_id: '6f1c2b9e-3d4a-4c57-9a1e-2b8f0c7d5e31',
              checks: [
                { name: 'database', ready: true },
                { name: 'migrations', ready: false, detail: 'pending: 0002-governance' },
              ],
            },
          },
        },
      },
    },
  }),
  getMetrics: defineOperation({
    operationId: 'getMetrics',
    method: 'get',
    path: '/metrics',
    access: 'operator',
    tags: operationsTags,
    summary: 'Prometheus metrics (admin key; not rate limited or metered)',
    description:
      'The Prometheus text format (`text/plain; version=0.0.4`). On the API port only the admin key may ' +
      'read it; `--metrics-port` serves the same text without a key on a port of its own, to keep off ' +
      'the public network.',
    response: {
      status: 200,
      schema: z.string(),
      mediaType: 'text/plain',
      description: 'Every metric, in the Prometheus text format',
      example: METRICS_EXAMPLE,
    },
  }),
} as const
