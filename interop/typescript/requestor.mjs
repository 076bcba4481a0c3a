// taskcheck requestor driver written with the official TypeScript SDK (@modelcontextprotocol/sdk
// 1.32.2), used as its example client does (examples/client/simpleTaskInteractiveClient.js):
// `client.experimental.tasks.callToolStream`, which creates the task, polls it and fetches its
// result, with an elicitation handler for input. The SDK decides from tools/list whether a call
// is a task (its default when no `task` option is passed). Does what TASKCHECK_REQUEST asks of
// the server given as arguments, a URL (Streamable HTTP) or a stdio command (`taskcheck
// requestor`, docs/testing-clients.md); asked to list, it walks every page of tasks/list,
// following nextCursor. docs/testing-clients.md shows this file from its first import
// (harness/tests/requestor.rs keeps the two the same).
//
//   node requestor.mjs URL | SERVER-COMMAND [ARGS...]

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const ask = JSON.parse(process.env.TASKCHECK_REQUEST ?? '{}');
const [command, ...args] = process.argv.slice(2);
const client = new Client(
  { name: 'taskcheck-requestor-typescript', version: '1.32.2' },
  { capabilities: { elicitation: { form: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer: 'taskcheck' } }));
const http = command.startsWith('http');
await client.connect(http ? new StreamableHTTPClientTransport(new URL(command)) : new StdioClientTransport({ command, args }));
await client.listTools();
const params = { name: ask.tool, arguments: ask.arguments ?? {} };
for (let i = 0; i < (ask.times ?? 1); i++) {
  if (!ask.task) { await client.callTool(params); continue; }
  for await (const message of client.experimental.tasks.callToolStream(params, CallToolResultSchema)) {
    if (message.type === 'taskCreated' && ask.cancel_after_ms !== undefined) {
      setTimeout(() => client.experimental.tasks.cancelTask(message.task.taskId), ask.cancel_after_ms);
    }
  }
}
for (let cursor, first = true; ask.list && (first || cursor); first = false) {
  cursor = (await client.experimental.tasks.listTasks(cursor)).nextCursor;
}
await client.close();
