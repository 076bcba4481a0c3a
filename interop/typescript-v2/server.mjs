// A server written with the newest major of the TypeScript SDK (@modelcontextprotocol/server
// 2.4.0), which implements the 2026-07-28 spec and no longer 2025-11-25 tasks (no task store,
// no registerToolTask): taskcheck must say so plainly (the tasks rules not applicable) and
// still check that a task-augmented call is processed normally, its `task` ignored.
//
// Only the two fixtures that scenario needs, registered as the SDK's README shows:
//
//   node server.mjs            # stdio

import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: 'text', text: value }] });

const server = new McpServer({ name: 'taskcheck-fixtures-typescript-v2', version: '2.4.0' });
server.registerTool(
  'sync_echo',
  { description: 'taskcheck fixture sync_echo: returns the text', inputSchema: z.object({ text: z.string().default('') }) },
  async ({ text: value }) => text(value),
);
server.registerTool(
  'optional_sleep',
  {
    description: 'taskcheck fixture optional_sleep: returns "slept <ms>" after ms',
    inputSchema: z.object({ ms: z.number().int().min(0).default(0) }),
  },
  async ({ ms }) => (await sleep(ms), text(`slept ${ms}`)),
);
await server.connect(new StdioServerTransport());
