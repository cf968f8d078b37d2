import { render } from 'preact'
import { App } from './app.js'

/* The console's page (docs/console.md): everything it shows comes from the API, through the session. */
const root = document.getElementById('app')
if (root) render(<App />, root)
