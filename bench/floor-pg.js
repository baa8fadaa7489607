// The platform floor of a cold PostgreSQL read, for the floor Worker (scripts/bench.mjs): what a
// Worker cannot do without to answer a query from a server it has no connection to. One
// `cloudflare:sockets` connection, the startup and SCRAM-SHA-256 login (the salted password kept
// per password, salt and round count, as edgeboard keeps it), then the read as edgeboard sends it,
// `BEGIN READ ONLY`, its two `SET LOCAL`s, the query with its parameters and `COMMIT` under one
// Sync, the rows read as text into objects, Terminate and close. Nothing else: no driver, no
// type parsing, no query planning. Never deployed; the bench's own code.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const salted = new Map();

const cstring = (text) => {
  const bytes = encoder.encode(text);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
};

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const int16 = (n) => new Uint8Array([(n >> 8) & 0xff, n & 0xff]);
const int32 = (n) => {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, n);
  return out;
};

/** A frontend message: its type byte, its length, its body. */
const message = (type, ...parts) => {
  const body = concat(parts);
  return concat([encoder.encode(type), int32(body.length + 4), body]);
};

/** A parameter as PostgreSQL's text (arrays as array literals, as node-postgres writes them). */
function paramText(value) {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) {
    const items = value.map((v) => {
      const text = paramText(v);
      return text === null ? 'NULL' : Array.isArray(v) ? text : `"${text.replace(/(["\\])/g, '\\$1')}"`;
    });
    return `{${items.join(',')}}`;
  }
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Parse, Bind, (Describe,) Execute of one statement of the read; its Sync is the read's. */
function statement(sql, params = [], describe = false) {
  const values = params.map(paramText).map((text) => {
    if (text === null) return int32(-1);
    const bytes = encoder.encode(text);
    return concat([int32(bytes.length), bytes]);
  });
  return [
    message('P', cstring(''), cstring(sql), int16(0)),
    message('B', cstring(''), cstring(''), int16(0), int16(values.length), ...values, int16(0)),
    ...(describe ? [message('D', encoder.encode('P'), cstring(''))] : []),
    message('E', cstring(''), int32(0)),
  ];
}

const base64 = (bytes) => btoa(String.fromCharCode(...bytes));
const unbase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

async function hmac(key, data) {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(
    await crypto.subtle.sign('HMAC', k, typeof data === 'string' ? encoder.encode(data) : data),
  );
}

async function saltedPassword(password, salt, iterations) {
  const key = `${password}\0${base64(salt)}\0${iterations}`;
  let kept = salted.get(key);
  if (!kept) {
    const base = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, [
      'deriveBits',
    ]);
    kept = new Uint8Array(
      await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base, 256),
    );
    salted.set(key, kept);
  }
  return kept;
}

/**
 * One read on a fresh connection: `{ columns, rows, queryMs }`, the rows as objects of text;
 * `queryMs` is the Worker's own span of the read's round trip (as edgeboard's `pg-query`).
 */
export async function pgRead(connect, { host, port, user, password, database }, sql, params, timeoutMs) {
  const socket = connect({ hostname: host, port });
  const writer = socket.writable.getWriter();
  const reader = socket.readable.getReader();
  let buffered = new Uint8Array(0);
  const next = async () => {
    for (;;) {
      if (buffered.length >= 5) {
        const length = new DataView(buffered.buffer, buffered.byteOffset).getInt32(1);
        if (buffered.length > length) {
          const type = String.fromCharCode(buffered[0]);
          const body = buffered.subarray(5, length + 1);
          buffered = buffered.subarray(length + 1);
          if (type === 'E') throw new Error(`PostgreSQL: ${decoder.decode(body)}`);
          return { type, body };
        }
      }
      const { done, value } = await reader.read();
      if (done) throw new Error('PostgreSQL closed the connection');
      buffered = buffered.length > 0 ? concat([buffered, value]) : value;
    }
  };
  try {
    const options = concat([
      cstring('user'),
      cstring(user),
      cstring('database'),
      cstring(database),
      cstring(''),
    ]);
    writer.write(concat([int32(options.length + 8), int32(196608), options]));
    const nonce = base64(crypto.getRandomValues(new Uint8Array(18)));
    const clientFirst = `n=*,r=${nonce}`;
    for (let m = await next(); m.type !== 'Z'; m = await next()) {
      if (m.type !== 'R') continue;
      const code = new DataView(m.body.buffer, m.body.byteOffset).getInt32(0);
      if (code === 3) writer.write(message('p', cstring(password)));
      if (code === 10) {
        const first = encoder.encode(`n,,${clientFirst}`);
        writer.write(message('p', cstring('SCRAM-SHA-256'), int32(first.length), first));
      }
      if (code === 11) {
        const serverFirst = decoder.decode(m.body.subarray(4));
        const attrs = Object.fromEntries(serverFirst.split(',').map((kv) => [kv[0], kv.slice(2)]));
        const key = await saltedPassword(password, unbase64(attrs.s), Number(attrs.i));
        const clientKey = await hmac(key, 'Client Key');
        const storedKey = new Uint8Array(await crypto.subtle.digest('SHA-256', clientKey));
        const withoutProof = `c=biws,r=${attrs.r}`;
        const signature = await hmac(storedKey, `${clientFirst},${serverFirst},${withoutProof}`);
        const proof = clientKey.map((b, i) => b ^ signature[i]);
        writer.write(message('p', encoder.encode(`${withoutProof},p=${base64(proof)}`)));
      }
    }
    const sent = Date.now();
    writer.write(
      concat([
        ...statement('BEGIN READ ONLY'),
        ...statement(`SET LOCAL statement_timeout = ${Number(timeoutMs)}`),
        ...statement("SET LOCAL TIME ZONE 'UTC'"),
        ...statement(sql, params, true),
        ...statement('COMMIT'),
        message('S'),
      ]),
    );
    const columns = [];
    const rows = [];
    for (let m = await next(); m.type !== 'Z'; m = await next()) {
      const view = new DataView(m.body.buffer, m.body.byteOffset, m.body.length);
      if (m.type === 'T') {
        let at = 2;
        for (let i = 0; i < view.getInt16(0); i++) {
          const end = m.body.indexOf(0, at);
          columns.push(decoder.decode(m.body.subarray(at, end)));
          at = end + 1 + 18;
        }
      }
      if (m.type === 'D') {
        const row = {};
        let at = 2;
        for (let i = 0; i < view.getInt16(0); i++) {
          const length = view.getInt32(at);
          at += 4;
          row[columns[i]] = length < 0 ? null : decoder.decode(m.body.subarray(at, at + length));
          at += Math.max(0, length);
        }
        rows.push(row);
      }
    }
    const queryMs = Date.now() - sent;
    writer.write(message('X'));
    return { columns, rows, queryMs };
  } finally {
    await socket.close().catch(() => {});
  }
}
