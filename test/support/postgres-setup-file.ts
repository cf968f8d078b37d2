import { afterAll } from 'vitest'
import { closeAdmin } from './backends.js'

// Each test file of the `postgres` project closes the connection it used to create and drop databases.
afterAll(closeAdmin)
