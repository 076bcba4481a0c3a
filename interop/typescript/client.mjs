// taskcheck fixture client written with the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.32.2), plain JavaScript ESM: no build step.
//
// A client-side task receiver: `Client` with an in-memory task store, whose sampling and
// elicitation handlers create a task when the request asks for one, as the SDK's own example
// does (examples/client/simpleStreamableHttp.js). The SDK answers tasks/get, tasks/result,
// tasks/list and tasks/cancel from the store. It implements the client fixture contract:
// sampling waits `metadata.delayMs` ms and fails when `metadata.fail` is true; elicitation
// accepts with no fields; roots/list lists one root.
//
//   node client.mjs http://127.0.0.1:PORT/mcp/...   # Streamable HTTP (taskcheck client)
//   node client.mjs SERVER-COMMAND [ARGS...]        # stdio (taskcheck client --stdio)
//   --example-shapes (first)                        # the result stored as the SDK's examples
//                                                   # store it, nothing to take a refusal

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const EXAMPLE_SHAPES = process.argv[2] === '--example-shapes';

const client = new Client(
  { name: 'taskcheck-fixture-client-typescript', version: '1.32.2' },
  {
    capabilities: {
      roots: {},
      sampling: {},
      elicitation: { form: {} },
      tasks: {
        list: {},
        cancel: {},
        requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
      },
    },
    taskStore: new InMemoryTaskStore(),
  },
);

// Runs `work` for the request: at once, or as a task whose outcome the store keeps.
async function answer(request, extra, work) {
  if (!request.params.task) return await work();
  const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, pollInterval: 100 });
  (async () => {
    let status = 'completed';
    let result;
    try {
      result = await work();
    } catch (error) {
      // a task's outcome can only be a stored result, not a JSON-RPC error
      status = 'failed';
      result = { role: 'assistant', content: { type: 'text', text: String(error) }, model: 'taskcheck-fixture' };
    }
    // the store refuses an outcome for a task that is cancelled or gone (its ttl elapsed):
    // that refusal is how it keeps a cancelled task cancelled, so it is taken and said (the
    // SDK's examples leave it unhandled, and Node exits: `--example-shapes` keeps that)
    const store = extra.taskStore.storeTaskResult(task.taskId, status, result);
    if (EXAMPLE_SHAPES) await store;
    else await store.catch((refused) => console.error(`task ${task.taskId}: ${refused.message}`));
  })();
  return { task };
}

client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) =>
  answer(request, extra, async () => {
    const metadata = request.params.metadata ?? {};
    await sleep(metadata.delayMs ?? 0);
    if (metadata.fail === true) {
      throw new McpError(ErrorCode.InternalError, 'the fixture was asked to fail (metadata.fail)');
    }
    return {
      role: 'assistant',
      content: { type: 'text', text: 'taskcheck fixture reply' },
      model: 'taskcheck-fixture',
      stopReason: 'endTurn',
    };
  }),
);

client.setRequestHandler(ElicitRequestSchema, async (request, extra) =>
  answer(request, extra, async () => ({ action: 'accept', content: {} })),
);

client.setRequestHandler(ListRootsRequestSchema, async () => ({
  roots: [{ uri: 'file:///taskcheck', name: 'taskcheck' }],
}));

const [target, ...args] = process.argv.slice(EXAMPLE_SHAPES ? 3 : 2);
if (!target) {
  console.error('usage: node client.mjs URL | SERVER-COMMAND [ARGS...]');
  process.exit(2);
}
const transport = /^https?:\/\//.test(target)
  ? new StreamableHTTPClientTransport(new URL(target))
  : new StdioClientTransport({ command: target, args });
client.onclose = () => process.exit(0);
await client.connect(transport);
