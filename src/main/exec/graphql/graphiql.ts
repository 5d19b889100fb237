// The query page at /graphql/ui (geth serves GraphiQL there). This one is a single self-contained page: no script,
// style or font is loaded from anywhere, so it works on machines without internet access. It posts the query to
// /graphql and shows the answer.
import type { IncomingMessage, ServerResponse } from 'node:http';

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>tern-exec GraphQL</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; display: flex; flex-direction: column; height: 100vh; }
  header { padding: 8px 12px; background: #222; color: #eee; display: flex; gap: 12px; align-items: center; }
  main { flex: 1; display: grid; grid-template-columns: 1fr 1fr; gap: 8px; padding: 8px; min-height: 0; }
  section { display: flex; flex-direction: column; min-height: 0; }
  textarea, pre { flex: 1; font-family: ui-monospace, monospace; font-size: 13px; margin: 0; padding: 8px;
    border: 1px solid #ccc; overflow: auto; resize: none; }
  #variables { flex: 0 0 25%; margin-top: 8px; }
  button { font-size: 14px; padding: 4px 16px; }
</style>
</head>
<body>
<header><strong>tern-exec GraphQL</strong><button id="run" title="Ctrl+Enter">Run</button><span id="status"></span></header>
<main>
  <section>
    <textarea id="query" spellcheck="false">{
  block {
    number
    hash
    timestamp
    transactions { hash from { address } to { address } value }
  }
}</textarea>
    <textarea id="variables" spellcheck="false" placeholder="variables (JSON)"></textarea>
  </section>
  <section><pre id="result"></pre></section>
</main>
<script>
  const $ = (id) => document.getElementById(id);
  async function run() {
    $('status').textContent = 'running...';
    let variables = null;
    try {
      const text = $('variables').value.trim();
      if (text !== '') variables = JSON.parse(text);
    } catch (err) {
      $('status').textContent = 'variables are not valid JSON: ' + err.message;
      return;
    }
    try {
      const res = await fetch(new URL('/graphql', location.href), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: $('query').value, variables }),
      });
      const text = await res.text();
      try { $('result').textContent = JSON.stringify(JSON.parse(text), null, 2); }
      catch { $('result').textContent = text; }
      $('status').textContent = res.status + ' ' + res.statusText;
    } catch (err) {
      $('status').textContent = 'request failed: ' + err.message;
    }
  }
  $('run').addEventListener('click', run);
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(); });
</script>
</body>
</html>
`;

/** GET only (geth answers 405 with a JSON error otherwise); every path under /graphql/ui serves the page. */
export function serveGraphiql(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET') {
    const body = JSON.stringify({ Error: 'only GET allowed' });
    res.writeHead(405, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/html',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(PAGE),
  });
  res.end(PAGE);
}
