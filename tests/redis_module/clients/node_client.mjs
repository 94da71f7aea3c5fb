// The blockbloom Redis module through a real client: node-redis v4 with
// @redis/bloom (npm; scripts/fetch-node-clients installs them into
// build/node-clients).
//
//   NODE_CLIENTS_DIR=build/node-clients node node_client.mjs PORT   (or REDIS_PORT)
//   BLOCKBLOOM_CLI: the `blockbloom` binary, for the BB.DUMP / BB.LOAD checks.
//
// Checks the reply shapes listed in shapes.json, the same list
// python_client.py checks with redis-py. node-redis turns replies into
// booleans (ADD, EXISTS: reply === 1), boolean arrays (MADD, MEXISTS, INSERT)
// and an object read by position (INFO: reply[1], [3], [5], [7], [9]); the raw
// replies are checked with sendCommand. Exit 77 (skipped) when the packages
// are missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const clientsDir = process.env.NODE_CLIENTS_DIR ||
  path.resolve(here, '../../../build/node-clients');
let redis;
try {
  redis = createRequire(path.join(clientsDir, 'package.json'))('redis');
} catch (e) {
  console.log(`SKIP: node-redis is not installed in ${clientsDir} (scripts/fetch-node-clients)`);
  process.exit(77);
}
const { createClient, commandOptions } = redis;

const port = Number(process.argv[2] || process.env.REDIS_PORT || 6379);
const CLI = process.env.BLOCKBLOOM_CLI || '';
const SHAPES = JSON.parse(fs.readFileSync(path.join(here, 'shapes.json'), 'utf8'))
  .shapes.map((s) => s.id);
const ran = [];
let client;

function shape(id, fn) {
  assert.ok(SHAPES.includes(id), id);
  test(id, { timeout: 60000 }, async (t) => {
    ran.push(id);
    await fn(t);
  });
}

// The message without the "ERR " code, as redis-py shows it.
function text(err) {
  return String(err.message).replace(/^ERR /, '').trimEnd();
}

async function expectError(promise, expected, { exact = true } = {}) {
  let err;
  try {
    await promise;
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected an error ${expected ?? ''}`);
  if (expected !== undefined) {
    if (exact) assert.equal(text(err), expected.trimEnd());
    else assert.ok(text(err).includes(expected), text(err));
  }
  return err;
}

const raw = (...args) => client.sendCommand(args.map(String));
const rawBuf = (...args) =>
  client.sendCommand(args.map((a) => (Buffer.isBuffer(a) ? a : String(a))), { returnBuffers: true });
const range = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const ones = (n) => Array(n).fill(true);

async function neverAnswersZero(key, items) {
  if ((await client.type(key)) === 'none') return;
  let reply;
  try {
    reply = await raw('BF.MEXISTS', key, ...items);
  } catch {
    return;
  }
  assert.deepEqual(reply, Array(items.length).fill(1), 'a half-loaded key answered 0');
}

before(async () => {
  // No endless reconnecting (a crashed server fails the tests, not hangs them).
  client = createClient({
    socket: {
      host: '127.0.0.1', port,
      reconnectStrategy: (retries) => (retries > 2 ? new Error('server gone') : 100),
    },
    disableOfflineQueue: true,
  });
  client.on('error', () => {});
  await client.connect();
  await client.flushAll();
});

after(async () => {
  await client.quit();
});

// ---------------------------------------------------------------- BF.RESERVE
shape('reserve_ok', async () => {
  assert.equal(await client.bf.reserve('r:ok', 0.01, 1000), 'OK');
  assert.equal(await client.bf.reserve('r:exp', 0.01, 1000, { EXPANSION: 4 }), 'OK');
  assert.equal(await client.bf.reserve('r:ns', 0.01, 1000, { NONSCALING: true }), 'OK');
  assert.equal(await client.type('r:ok'), 'bb-filter');
});

shape('reserve_errors', async () => {
  await client.bf.reserve('r:dup', 0.01, 100);
  await expectError(client.bf.reserve('r:dup', 0.01, 100), 'item exists');
  await expectError(raw('BF.RESERVE', 'r:e1', 'abc', 100), 'bad error rate');
  for (const rate of ['0', '1', '-0.5', '1.5']) {
    await expectError(raw('BF.RESERVE', 'r:e2', rate, 100), '(0 < error rate range < 1)');
  }
  await expectError(raw('BF.RESERVE', 'r:e3', 0.01, 'abc'), 'bad capacity');
  await expectError(client.bf.reserve('r:e4', 0.01, 0), '(capacity should be larger than 0)');
  await expectError(raw('BF.RESERVE', 'r:e5', 0.01, 100, 'EXPANSION', 2, 'NONSCALING'));
  await expectError(raw('BF.RESERVE', 'r:e6', 0.01, 100, 'EXPANSION', 'x'));
  for (const k of ['r:e1', 'r:e2', 'r:e3', 'r:e4', 'r:e5', 'r:e6']) {
    assert.equal(await client.exists(k), 0, k);
  }
});

// ------------------------------------------------------------ BF.ADD / MADD
shape('add_shapes', async () => {
  await client.bf.reserve('a:1', 0.01, 1000);
  assert.equal(await client.bf.add('a:1', 'apple'), true);
  assert.equal(await client.bf.add('a:1', 'apple'), false);
  assert.equal(await raw('BF.ADD', 'a:1', 'pear'), 1); // an integer reply
  assert.equal(await client.bf.add('a:1', Buffer.from([0, 255, 98])), true);
  assert.equal(await client.bf.exists('a:1', Buffer.from([0, 255, 98])), true);
  assert.equal(await client.bf.add('a:1', ''), true);
});

shape('add_autocreate', async () => {
  assert.equal(await client.bf.add('a:auto', 'x'), true);
  const info = await client.bf.info('a:auto');
  assert.equal(info.capacity, 100);
  assert.equal(info.expansionRate, 2);
  assert.equal(info.numberOfFilters, 1);
  assert.equal(info.numberOfInsertedItems, 1);
});

shape('madd_shapes', async () => {
  assert.deepEqual(await client.bf.mAdd('m:1', ['a', 'b', 'c']), [true, true, true]);
  assert.deepEqual(await client.bf.mAdd('m:1', ['a', 'd', 'a']), [false, true, false]);
  assert.deepEqual(await raw('BF.MADD', 'm:1', 'a', 'e'), [0, 1]);
  assert.equal(await client.bf.card('m:1'), 5);
});

// ------------------------------------------------------ BF.EXISTS / MEXISTS
shape('exists_shapes', async () => {
  await client.bf.mAdd('e:1', ['a', 'b']);
  assert.equal(await client.bf.exists('e:1', 'a'), true);
  assert.equal(await raw('BF.EXISTS', 'e:1', 'a'), 1);
  assert.equal(await client.bf.exists('e:missing', 'a'), false);
  assert.equal(await raw('BF.EXISTS', 'e:missing', 'a'), 0);
});

shape('mexists_shapes', async () => {
  const items = range('item-', 200);
  await client.bf.mAdd('me:1', items);
  assert.deepEqual(await client.bf.mExists('me:1', items), ones(200));
  assert.deepEqual(await raw('BF.MEXISTS', 'me:1', ...items), Array(200).fill(1));
  assert.deepEqual(await client.bf.mExists('me:missing', ['a', 'b']), [false, false]);
  const others = await client.bf.mExists('me:1', range('other-', 200));
  assert.ok(others.filter(Boolean).length < 20);
});

shape('wrongtype', async () => {
  await client.set('w:str', 'hello');
  for (const call of [
    () => client.bf.exists('w:str', 'a'),
    () => client.bf.mExists('w:str', ['a', 'b']),
    () => client.bf.add('w:str', 'a'),
    () => client.bf.mAdd('w:str', ['a']),
    () => client.bf.insert('w:str', ['a']),
    () => client.bf.info('w:str'),
    () => client.bf.card('w:str'),
    () => client.bf.scanDump('w:str', 0),
  ]) {
    const err = await expectError(call());
    assert.match(err.message, /^WRONGTYPE/);
  }
  assert.equal(await client.get('w:str'), 'hello');
});

// ---------------------------------------------------------------- BF.INSERT
shape('insert_shapes', async () => {
  const got = await client.bf.insert('i:1', ['a', 'b', 'a'],
    { CAPACITY: 500, ERROR: 0.001, EXPANSION: 4 });
  assert.deepEqual(got, [true, true, false]);
  const info = await client.bf.info('i:1');
  assert.equal(info.capacity, 500);
  assert.equal(info.expansionRate, 4);
  assert.equal(info.numberOfInsertedItems, 2);
  assert.deepEqual(await client.bf.insert('i:1', ['c'], { CAPACITY: 7 }), [true]);
  assert.equal((await client.bf.info('i:1')).capacity, 500);
  await client.bf.insert('i:ns', ['a'], { NONSCALING: true });
  assert.equal((await client.bf.info('i:ns')).expansionRate, null);
});

shape('insert_nocreate', async () => {
  await expectError(client.bf.insert('i:none', ['a'], { NOCREATE: true }), 'not found');
  assert.equal(await client.exists('i:none'), 0);
});

shape('nonscaling_full', async () => {
  await client.bf.reserve('f:1', 0.01, 2, { NONSCALING: true });
  assert.equal(await client.bf.add('f:1', 'x1'), true);
  assert.equal(await client.bf.add('f:1', 'x2'), true);
  await expectError(client.bf.add('f:1', 'x3'), 'non scaling filter is full');
  assert.equal(await client.bf.add('f:1', 'x1'), false);
  await client.bf.reserve('f:2', 0.01, 2, { NONSCALING: true });
  // node-redis keeps an error inside an array as an ErrorReply element
  const got = await raw('BF.MADD', 'f:2', 'p', 'q', 'r', 's');
  assert.equal(got.length, 3);
  assert.deepEqual(got.slice(0, 2), [1, 1]);
  assert.ok(got[2] instanceof Error, String(got[2]));
  assert.equal(text(got[2]), 'non scaling filter is full');
  await client.bf.reserve('f:3', 0.01, 2, { NONSCALING: true });
  assert.deepEqual(await client.bf.mAdd('f:3', ['p', 'q', 'r', 's']), [true, true, false]);
  assert.deepEqual(await client.bf.mExists('f:2', ['p', 'q']), [true, true]);
  assert.equal(await client.bf.card('f:2'), 2);
});

// ------------------------------------------------------------------ BF.INFO
shape('info_shapes', async () => {
  await client.bf.reserve('n:1', 0.01, 1000);
  await client.bf.mAdd('n:1', ['a', 'b', 'c']);
  const r = await raw('BF.INFO', 'n:1');
  assert.equal(r.length, 10);
  assert.deepEqual(r.filter((_, i) => i % 2 === 0),
    ['Capacity', 'Size', 'Number of filters', 'Number of items inserted', 'Expansion rate']);
  for (let i = 1; i < 10; i += 2) assert.equal(typeof r[i], 'number', `element ${i}`);
  assert.equal(r[1], 1000);
  assert.ok(r[3] > 0);
  assert.deepEqual([r[5], r[7], r[9]], [1, 3, 2]);
  const info = await client.bf.info('n:1'); // the client's own parser, by position
  assert.deepEqual(info, {
    capacity: 1000, size: r[3], numberOfFilters: 1, numberOfInsertedItems: 3, expansionRate: 2,
  });
  await client.bf.reserve('n:ns', 0.01, 10, { NONSCALING: true });
  const ns = await raw('BF.INFO', 'n:ns');
  assert.equal(ns[8], 'Expansion rate');
  assert.equal(ns[9], null);
});

shape('info_field_shapes', async () => {
  await client.bf.reserve('nf:1', 0.01, 1000, { EXPANSION: 3 });
  await client.bf.mAdd('nf:1', ['a', 'b']);
  const full = await raw('BF.INFO', 'nf:1');
  for (const [field, value] of [['CAPACITY', 1000], ['SIZE', full[3]], ['FILTERS', 1],
    ['ITEMS', 2], ['EXPANSION', 3], ['capacity', 1000]]) {
    assert.deepEqual(await raw('BF.INFO', 'nf:1', field), [value], field);
  }
  await client.bf.reserve('nf:ns', 0.01, 10, { NONSCALING: true });
  assert.deepEqual(await raw('BF.INFO', 'nf:ns', 'EXPANSION'), [null]);
  await expectError(raw('BF.INFO', 'nf:1', 'BOGUS'));
});

shape('info_missing', async () => {
  await expectError(client.bf.info('n:missing'), 'not found');
});

shape('card_shapes', async () => {
  await client.bf.mAdd('c:1', ['a', 'b', 'c', 'a']);
  const got = await client.bf.card('c:1');
  assert.equal(typeof got, 'number');
  assert.equal(got, 3);
  assert.equal(await client.bf.card('c:missing'), 0);
  assert.deepEqual(await raw('BF.INFO', 'c:1', 'ITEMS'), [got]);
});

shape('arity_errors', async () => {
  for (const args of [['BF.ADD', 'k'], ['BF.EXISTS', 'k'], ['BF.EXISTS', 'k', 'a', 'b'],
    ['BF.RESERVE', 'k', '0.01'], ['BF.MADD', 'k'], ['BF.CARD'], ['BF.SCANDUMP', 'k'],
    ['BF.LOADCHUNK', 'k', '1'], ['BF.INSERT', 'k', 'ITEMS']]) {
    await expectError(raw(...args), 'wrong number of arguments', { exact: false });
  }
});

// ------------------------------------------------------------------ scaling
shape('scaling_layers', async () => {
  await client.bf.reserve('s:1', 0.01, 100, { EXPANSION: 2 });
  const items = range('s-', 1000);
  let added = 0;
  for (let i = 0; i < 1000; i += 100) {
    added += (await client.bf.mAdd('s:1', items.slice(i, i + 100))).filter(Boolean).length;
  }
  const info = await client.bf.info('s:1');
  assert.ok(info.numberOfFilters >= 3);
  let capacity = 0;
  for (let i = 0; i < info.numberOfFilters; i++) capacity += 100 * 2 ** i;
  assert.equal(info.capacity, capacity);
  assert.equal(info.numberOfInsertedItems, added);
  assert.ok(added > 980);
  assert.deepEqual(await client.bf.mExists('s:1', items), ones(1000));
});

// ------------------------------------------------------ SCANDUMP / LOADCHUNK
async function scanDump(key) {
  const chunks = [];
  let iterator = 0;
  for (;;) { // the loop of node-redis' README
    const reply = await client.bf.scanDump(commandOptions({ returnBuffers: true }), key, iterator);
    assert.equal(typeof reply.iterator, 'number');
    iterator = reply.iterator;
    if (iterator === 0) {
      assert.ok(reply.chunk === null || reply.chunk.length === 0, 'the last reply carries no data');
      return chunks;
    }
    assert.ok(Buffer.isBuffer(reply.chunk));
    chunks.push({ iterator, chunk: reply.chunk });
  }
}

shape('scandump_roundtrip', async () => {
  const items = range('d-', 3000);
  await client.bf.reserve('d:src', 0.01, 1000);
  for (let i = 0; i < items.length; i += 500) await client.bf.mAdd('d:src', items.slice(i, i + 500));
  const chunks = await scanDump('d:src');
  assert.ok(chunks.length >= 1);
  for (const { iterator, chunk } of chunks) {
    assert.equal(await client.bf.loadChunk('d:dst', iterator, chunk), 'OK');
  }
  assert.deepEqual(await client.bf.mExists('d:dst', items), ones(items.length));
  assert.deepEqual(await client.bf.info('d:dst'), await client.bf.info('d:src'));
  const probe = range('other-', 500);
  assert.deepEqual(await client.bf.mExists('d:dst', probe), await client.bf.mExists('d:src', probe));
  assert.equal(await client.bf.card('d:dst'), await client.bf.card('d:src'));
});

shape('loadchunk_damaged', async () => {
  const items = range('z-', 2000);
  await client.bf.reserve('z:src', 0.01, 500);
  for (let i = 0; i < items.length; i += 500) await client.bf.mAdd('z:src', items.slice(i, i + 500));
  const chunks = await scanDump('z:src');
  let seed = 7;
  const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let victim = 0; victim < chunks.length; victim++) {
    const key = `z:dst${victim}`;
    let resumed = true;
    for (let n = 0; n < chunks.length; n++) {
      const { iterator, chunk } = chunks[n];
      if (n === victim) {
        const bad = Buffer.from(chunk);
        for (let j = 0; j < 3; j++) bad[rand(bad.length)] ^= 1 << rand(8);
        await expectError(client.bf.loadChunk(key, iterator, bad));
        await neverAnswersZero(key, items);
      }
      try {
        await client.bf.loadChunk(key, iterator, chunk);
      } catch {
        resumed = false;
        await neverAnswersZero(key, items);
        break;
      }
    }
    if (!resumed) {
      await client.del(key);
      for (const { iterator, chunk } of chunks) await client.bf.loadChunk(key, iterator, chunk);
    }
    assert.deepEqual(await client.bf.mExists(key, items), ones(items.length));
  }
});

// --------------------------------------------------------------------- BB.*
async function bbDump(key) {
  const parts = [];
  let cursor = 0;
  for (let replies = 0; ; replies++) {
    assert.ok(replies < 100000);
    const [next, chunk] = await rawBuf('BB.DUMP', key, cursor);
    assert.equal(typeof next, 'number');
    if (chunk) parts.push(chunk);
    cursor = next;
    if (cursor === 0) return Buffer.concat(parts);
  }
}

function needCli(t) {
  if (!CLI || !fs.existsSync(CLI)) {
    t.skip('BLOCKBLOOM_CLI is not set to the blockbloom binary');
    return false;
  }
  return true;
}

function tmpDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'bb-node-'));
}

function buildFile(dir, items, ...flags) {
  const keys = path.join(dir, 'keys');
  const out = path.join(dir, 'built.bbf');
  fs.writeFileSync(keys, items.join('\n') + '\n');
  execFileSync(CLI, ['build', '--quiet', ...flags, keys, '-o', out], { stdio: 'pipe' });
  return fs.readFileSync(out);
}

async function bbLoad(key, data, parts, firstOptions = []) {
  const step = Math.max(1, Math.ceil(data.length / parts));
  let offset = 0;
  let reply;
  while (offset < data.length) {
    const chunk = data.subarray(offset, offset + step);
    const args = ['BB.LOAD', key, offset, data.length, chunk];
    if (offset === 0) args.push(...firstOptions);
    reply = await rawBuf(...args);
    offset += chunk.length;
    if (offset < data.length) assert.equal(reply, offset);
  }
  return Buffer.isBuffer(reply) ? reply.toString() : reply;
}

shape('bb_reserve_seed', async () => {
  for (const key of ['bs:1', 'bs:2']) {
    assert.equal(await raw('BB.RESERVE', key, 0.01, 1000, 'SEED', 42), 'OK');
    await client.bf.mAdd(key, ['a', 'b', 'c']);
  }
  assert.ok((await bbDump('bs:1')).equals(await bbDump('bs:2')));
  assert.deepEqual(await client.bf.mExists('bs:1', ['a', 'b', 'c']), ones(3));
});

shape('bb_mexists', async () => {
  await client.bf.mAdd('bm:1', ['a', 'b']);
  const got = await raw('BB.MEXISTS', 'bm:1', 'a', 'zzz-not-there', 'b');
  assert.equal(typeof got, 'string');
  assert.equal(got.length, 3);
  assert.equal(got[0] + got[2], '11');
  assert.match(got, /^[01]+$/);
  assert.equal(await raw('BB.MEXISTS', 'bm:missing', 'a', 'b'), '00');
});

shape('bb_info', async () => {
  await client.bf.mAdd('bi:1', ['a', 'b']);
  const got = await raw('BB.INFO', 'bi:1');
  assert.ok(Array.isArray(got));
  assert.equal(got.length % 2, 0);
  const fields = {};
  for (let i = 0; i < got.length; i += 2) {
    assert.equal(typeof got[i], 'string');
    fields[got[i]] = got[i + 1];
  }
  assert.equal(fields.State, 'ready');
});

shape('bb_dump_cli', async (t) => {
  if (!needCli(t)) return;
  const items = range('q-', 5000);
  await raw('BB.RESERVE', 'bd:1', 0.01, 10000);
  for (let i = 0; i < items.length; i += 1000) await client.bf.mAdd('bd:1', items.slice(i, i + 1000));
  const data = await bbDump('bd:1');
  const dir = tmpDir();
  try {
    fs.writeFileSync(path.join(dir, 'f.bbf'), data);
    fs.writeFileSync(path.join(dir, 'keys'), items.join('\n') + '\n');
    const out = execFileSync(CLI, ['query', path.join(dir, 'f.bbf'), path.join(dir, 'keys')]);
    assert.deepEqual(out.toString().split(/\s+/).filter(Boolean), Array(items.length).fill('1'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

shape('bb_load_chunks', async (t) => {
  if (!needCli(t)) return;
  const items = range('b-', 20000);
  const dir = tmpDir();
  let data;
  try {
    data = buildFile(dir, items, '--fp_rate=0.01');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(await bbLoad('bl:1', data, 4, ['ERROR', '0.01']), 'OK');
  for (let i = 0; i < items.length; i += 5000) {
    assert.deepEqual(await client.bf.mExists('bl:1', items.slice(i, i + 5000)), ones(5000));
  }
  assert.equal(await raw('BB.MEXISTS', 'bl:1', ...items.slice(0, 100)), '1'.repeat(100));
  const info = await raw('BB.INFO', 'bl:1');
  assert.equal(info[info.indexOf('State') + 1], 'ready');
  await client.bf.add('bl:1', 'brand-new-item');
  assert.equal(await client.bf.exists('bl:1', 'brand-new-item'), true);
});

shape('bb_load_damaged', async (t) => {
  if (!needCli(t)) return;
  const items = range('x-', 20000);
  const dir = tmpDir();
  let data;
  try {
    data = Buffer.from(buildFile(dir, items));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  data[Math.floor(data.length / 3)] ^= 0x10;
  await expectError(bbLoad('bx:1', data, 4));
  await neverAnswersZero('bx:1', items.slice(0, 2000));
});

test('the same shapes as shapes.json', () => {
  assert.deepEqual([...new Set(ran)].sort(), [...SHAPES].sort());
});
