// taskcheck fixture server written with the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.32.2), plain JavaScript ESM: no build step.
//
// Implements the fixture contract (`taskcheck list --fixtures`) with `McpServer`, an
// in-memory task store and `server.experimental.tasks.registerToolTask`, following the SDK's
// own examples (examples/server/simpleStreamableHttp.js, simpleTaskInteractive.js).
// interop/README.md says where the contract could not be expressed.
//
//   node server.mjs            # stdio
//   node server.mjs --http     # Streamable HTTP on 127.0.0.1, a free port; the endpoint URL
//                              # is the first line of stdout
//   --json-response            # HTTP: JSON responses (enableJsonResponse), no SSE streams
//   --no-tasks                 # a server without tasks: no task store, no tasks capability,
//                              # every fixture a plain registerTool
//   --calls-only               # tasks for tools/call only: `tasks.list` and `tasks.cancel`
//                              # left out of the capabilities
//   --example-shapes           # the work written exactly as the published examples write it:
//                              # the `delay` task's result stored with nothing to take the
//                              # store's refusal (a cancelled or expired task), and the
//                              # `collect-user-info-task` elicitation, which leaves the task
//                              # `working` while it waits

import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const ms = z.number().int().min(0).default(0);

// one store for the whole process, as in the SDK's example
const taskStore = new InMemoryTaskStore();

// What each task-capable fixture does once its task exists; `done` stores the outcome.
const EXAMPLE_SHAPES = process.argv.includes('--example-shapes');

const WORK = {
  optional_sleep: async ({ ms }) => ['completed', text(`slept ${ms}`)],
  required_sleep: async ({ ms }) => ['completed', text(`slept ${ms}`)],
  tool_error: async () => ['failed', { ...text('tool_error failed'), isError: true }],
  // a task's outcome can only be a stored result, not a JSON-RPC error (interop/README.md):
  // the request failing, the task is marked failed with no result at all (the examples' shape
  // stores a failed result instead, as their catch does)
  protocol_error: async () => {
    if (EXAMPLE_SHAPES) return ['failed', { ...text('protocol_error failed'), isError: true }];
    throw new Error('protocol_error fixture: internal error as asked');
  },
  elicit_input: async (_args, server, taskId) => {
    // waiting for the answer, the task is input_required, as the SDK's simpleTaskInteractive
    // example's TaskSession.elicit marks it (collect-user-info-task does not)
    if (!EXAMPLE_SHAPES) await taskStore.updateTaskStatus(taskId, 'input_required');
    const stream = server.server.experimental.tasks.elicitInputStream(
      {
        mode: 'form',
        message: 'taskcheck asks for an answer',
        requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
      },
      { relatedTask: { taskId } },
    );
    for await (const message of stream) {
      if (message.type === 'error') throw message.error;
      if (message.type === 'result') {
        const answer = message.result;
        if (!EXAMPLE_SHAPES) await taskStore.updateTaskStatus(taskId, 'working');
        if (answer.action === 'accept') return ['completed', text(String(answer.content?.answer ?? ''))];
        return ['completed', text(answer.action === 'decline' ? 'declined' : 'cancelled')];
      }
    }
    throw new Error('no answer to the elicitation');
  },
};

function taskTool(server, name, taskSupport, extra = {}) {
  server.experimental.tasks.registerToolTask(
    name,
    { description: `taskcheck fixture ${name}`, inputSchema: { ms, ...extra }, execution: { taskSupport } },
    {
      async createTask(args, taskExtra) {
        const task = await taskExtra.taskStore.createTask({ ttl: taskExtra.taskRequestedTtl, pollInterval: 100 });
        const work = async () => {
          await sleep(args.ms);
          return name === 'progress_sleep'
            ? await progress(args, taskExtra, task.taskId)
            : await WORK[name](args, server, task.taskId);
        };
        if (EXAMPLE_SHAPES && name === 'elicit_input') {
          // the shape of the example's elicitation task (collect-user-info-task): a failure
          // of the work is stored as a failed task
          (async () => {
            try {
              await taskStore.storeTaskResult(task.taskId, ...(await work()));
            } catch (error) {
              await taskStore.storeTaskResult(task.taskId, 'failed', { ...text(`Error: ${error}`), isError: true });
            }
          })();
        } else if (EXAMPLE_SHAPES) {
          // the shape of the example's delay task: the work, then its result stored
          (async () => {
            await taskStore.storeTaskResult(task.taskId, ...(await work()));
          })();
        } else {
          // the work, then its outcome stored; a work that throws marks the task failed. The
          // store refuses an outcome for a task that is cancelled or gone (its ttl elapsed):
          // that refusal is how it keeps a cancelled task cancelled, so it is taken and said
          (async () => {
            let outcome;
            try {
              outcome = await work();
            } catch (error) {
              await taskStore.updateTaskStatus(task.taskId, 'failed', String(error));
              return;
            }
            await taskStore.storeTaskResult(task.taskId, ...outcome);
          })().catch((refused) => console.error(`task ${task.taskId}: ${refused.message}`));
        }
        return { task };
      },
      async getTask(_args, { taskId, taskStore }) {
        return await taskStore.getTask(taskId);
      },
      async getTaskResult(_args, { taskId, taskStore }) {
        return await taskStore.getTaskResult(taskId);
      },
    },
  );
}

async function progress(args, taskExtra, taskId) {
  const token = taskExtra._meta?.progressToken;
  const steps = args.steps ?? 3;
  for (let step = 1; step <= steps; step++) {
    // the contract: `steps` progress notifications spread over `ms`
    await new Promise((resolve) => setTimeout(resolve, (args.ms ?? 0) / steps));
    if (token !== undefined) {
      await taskExtra.sendNotification(
        { method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps } },
        { relatedTask: { taskId } },
      );
    }
  }
  return ['completed', text(`slept ${args.ms}`)];
}

const NO_TASKS = process.argv.includes('--no-tasks');
const CALLS_ONLY = process.argv.includes('--calls-only');

// The fixtures as plain tools, the way a server without tasks writes them.
function plainServer() {
  const server = new McpServer({ name: 'taskcheck-fixtures-typescript', version: '1.32.2' });
  const plain = {
    sync_echo: async ({ text: value }) => text(value),
    forbidden_echo: async ({ text: value }) => text(value),
    optional_sleep: async ({ ms }) => (await sleep(ms), text(`slept ${ms}`)),
    required_sleep: async ({ ms }) => (await sleep(ms), text(`slept ${ms}`)),
    tool_error: async ({ ms }) => (await sleep(ms), { ...text('tool_error failed'), isError: true }),
  };
  for (const [name, run] of Object.entries(plain)) {
    server.registerTool(
      name,
      { description: `taskcheck fixture ${name}`, inputSchema: { ms, text: z.string().default('') } },
      run,
    );
  }
  return server;
}

function fixtureServer() {
  if (NO_TASKS) return plainServer();
  const server = new McpServer(
    { name: 'taskcheck-fixtures-typescript', version: '1.32.2' },
    {
      capabilities: {
        tasks: CALLS_ONLY
          ? { requests: { tools: { call: {} } } }
          : { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  for (const name of ['sync_echo', 'forbidden_echo']) {
    server.registerTool(
      name,
      { description: `taskcheck fixture ${name}`, inputSchema: { ms, text: z.string().default('') } },
      async ({ text: value }) => text(value),
    );
  }
  for (const name of ['optional_sleep', 'tool_error', 'protocol_error', 'elicit_input']) taskTool(server, name, 'optional');
  taskTool(server, 'required_sleep', 'required');
  taskTool(server, 'progress_sleep', 'optional', { steps: z.number().int().min(1).default(3) });
  return server;
}

async function serveHttp() {
  const app = createMcpExpressApp();
  const sessions = new Map();
  app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || !isInitializeRequest(req.body)) {
        res.status(sessionId ? 404 : 400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null });
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: process.argv.includes('--json-response'),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await fixtureServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  });
  const session = (req, res) => {
    const transport = sessions.get(req.headers['mcp-session-id']);
    if (!transport) return res.status(404).send('No valid session');
    return transport.handleRequest(req, res);
  };
  app.get('/mcp', session);
  app.delete('/mcp', session);
  const listener = app.listen(0, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${listener.address().port}/mcp`);
  });
}

if (process.argv.includes('--http')) {
  await serveHttp();
} else {
  await fixtureServer().connect(new StdioServerTransport());
}
