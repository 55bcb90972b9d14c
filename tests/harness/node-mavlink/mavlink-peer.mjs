#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
//
// A third-party MAVLink peer for barod's tests, built on node-mavlink
// (version pinned in package-lock.json), so our codec is checked against
// a decoder and an encoder we did not write.
//
//   node mavlink-peer.mjs decode
//       stdin: hex frames, one per line.  stdout: one JSON line per
//       decoded message:
//         {"name","msgid","protocol":1|2,"len","incompat","sysid","compid",
//          "seq","crc_ok","fields":{<MAVLink field name>: value, ...}}
//       or {"error":"bad_crc"|"no_frame","hex"} for a line that holds none.
//   node mavlink-peer.mjs encode
//       stdin: JSON lines {"msgid" or "name","sysid","compid","seq",
//       "protocol":1|2,"fields":{...}} (fields may also sit at the top
//       level).  stdout: one hex frame per line.
//       A request with "sign":{"key":HEX,"link":N,"timestamp_ms":MS} is
//       sent signed (MAVLink 2; node-mavlink's own signing, timestamp MS
//       in Unix milliseconds).
//   node mavlink-peer.mjs verify --key HEX
//       stdin: hex frames, one per line.  stdout: one JSON line each,
//       {"signed":bool,"ok":bool,"link":N,"timestamp":T} (ok: the
//       signature matches the 32-byte key HEX, by node-mavlink's check)
//       or {"error":"bad_crc"|"no_frame","hex"}.
//   node mavlink-peer.mjs gcs --port P --duration SECONDS
//           [--param-set NAME=VALUE --after-ms MS] [--param-type N]
//           [--target-sysid N --target-compid N]
//       Listen on UDP 127.0.0.1:P and print each received message as in
//       decode, plus "t_ms" (since start) and "from" ("addr:port").  With
//       --param-set, send one PARAM_SET (MAVLink 2, sysid 255, compid 190,
//       REAL32 unless --param-type) to the sender of the first datagram,
//       MS after it; targets default to that datagram's sysid/compid.
//       Notes go to stderr, so stdout is only messages.
//
// 64-bit integers are printed as numbers when exact, else as strings;
// NaN and infinities as the strings "NaN", "Infinity", "-Infinity".
// MAVLINK_PEER_MODULES may name the node_modules directory to load from.

import { createRequire } from 'node:module'
import dgram from 'node:dgram'
import path from 'node:path'
import readline from 'node:readline'

const require = createRequire(import.meta.url)
const modules = process.env.MAVLINK_PEER_MODULES
const mavlink = require(modules ? path.join(modules, 'node-mavlink') : 'node-mavlink')
const {
  MavLinkPacketSplitter, MavLinkPacketParser, MavLinkProtocolV1, MavLinkProtocolV2,
  MavLinkPacketSignature, x25crc, minimal, common, standard, ardupilotmega,
} = mavlink

// ardupilotmega too, so a gcs listening to ArduPilot names everything.
const REGISTRY = {
  ...ardupilotmega.REGISTRY, ...common.REGISTRY, ...standard.REGISTRY, ...minimal.REGISTRY,
}
const BY_NAME = Object.fromEntries(Object.values(REGISTRY).map(c => [c.MSG_NAME, c]))

function jsonValue(v) {
  if (typeof v === 'bigint')
    return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()
  if (typeof v === 'number' && !Number.isFinite(v))
    return String(v)
  if (Array.isArray(v))
    return v.map(jsonValue)
  return v
}

function describe(packet) {
  const h = packet.header
  const clazz = REGISTRY[h.msgid]
  const signed = packet.signature !== null
  const out = {
    name: clazz ? clazz.MSG_NAME : null,
    msgid: h.msgid,
    protocol: packet.protocol instanceof MavLinkProtocolV2 ? 2 : 1,
    len: h.payloadLength,
    incompat: h.incompatibilityFlags,
    sysid: h.sysid,
    compid: h.compid,
    seq: h.seq,
    crc_ok: null,
    fields: null,
  }
  if (!clazz)
    return out
  // The splitter has checked the CRC already; say so from our own sum.
  const trailer = 2 + (signed ? MavLinkPacketSignature.SIGNATURE_LENGTH : 0)
  out.crc_ok = x25crc(packet.buffer, 1, trailer, clazz.MAGIC_NUMBER) === packet.crc
  const data = packet.protocol.data(packet.payload, clazz)
  out.fields = {}
  for (const f of clazz.FIELDS)
    out.fields[f.source] = jsonValue(data[f.name])
  return out
}

// All messages in one datagram (or line), through node-mavlink's own
// splitter (STX hunting, CRC_EXTRA check) and parser.  Both are streams
// that work synchronously when written and read like this.
function decodeBuffer(buf, emit) {
  let found = 0
  const splitter = new MavLinkPacketSplitter({}, {
    onCrcError: bad => { found++; emit({ error: 'bad_crc', hex: bad.toString('hex') }) },
  })
  const parser = new MavLinkPacketParser()
  splitter.write(buf)
  for (let chunk; (chunk = splitter.read()) !== null;) {
    parser.write(chunk)
    found++
    emit(describe(parser.read()))
  }
  return found
}

const print = obj => process.stdout.write(JSON.stringify(obj) + '\n')

async function decodeMode() {
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const hex = line.replace(/\s+/g, '')
    if (hex === '')
      continue
    if (decodeBuffer(Buffer.from(hex, 'hex'), print) === 0)
      print({ error: 'no_frame', hex })
  }
}

function toFieldValue(field, v) {
  if (field.type.startsWith('char'))
    return String(v)
  const num = x => (typeof x === 'string' ? Number(x) : x)
  const int64 = /int64_t/.test(field.type)
  const one = x => (int64 ? BigInt(x) : num(x))
  return field.length ? [].concat(v).map(one) : one(v)
}

function encodeRequest(req) {
  const clazz = req.name !== undefined ? BY_NAME[req.name] : REGISTRY[req.msgid]
  if (!clazz)
    throw new Error(`unknown message ${req.name ?? req.msgid}`)
  const values = req.fields ?? req
  const msg = new clazz()
  for (const f of clazz.FIELDS) {
    const v = values[f.source] ?? values[f.name]
    if (v !== undefined)
      msg[f.name] = toFieldValue(f, v)
    else if (msg[f.name] === undefined)
      msg[f.name] = toFieldValue(f, f.type.startsWith('char') ? '' : 0)
  }
  if (req.sign) {
    const p = new MavLinkProtocolV2(req.sysid ?? 1, req.compid ?? 1, MavLinkProtocolV2.IFLAG_SIGNED)
    return p.sign(p.serialize(msg, req.seq ?? 0), req.sign.link ?? 0,
      Buffer.from(req.sign.key, 'hex'), req.sign.timestamp_ms)
  }
  const Protocol = req.protocol === 1 ? MavLinkProtocolV1 : MavLinkProtocolV2
  return new Protocol(req.sysid ?? 1, req.compid ?? 1).serialize(msg, req.seq ?? 0)
}

// Each frame through node-mavlink's splitter and parser, its signature
// checked with node-mavlink's MavLinkPacketSignature.matches.
async function verifyMode(opts) {
  const key = Buffer.from(opts.key ?? '', 'hex')
  if (key.length !== 32)
    throw new Error('--key wants 64 hex digits')
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const hex = line.replace(/\s+/g, '')
    if (hex === '')
      continue
    const splitter = new MavLinkPacketSplitter({}, {
      onCrcError: () => print({ error: 'bad_crc', hex }),
    })
    const parser = new MavLinkPacketParser()
    splitter.write(Buffer.from(hex, 'hex'))
    let found = 0
    for (let chunk; (chunk = splitter.read()) !== null;) {
      parser.write(chunk)
      const packet = parser.read()
      const sig = packet.signature
      found++
      print(sig === null ? { signed: false, ok: false }
        : { signed: true, ok: sig.matches(key), link: sig.linkId, timestamp: sig.timestamp })
    }
    if (found === 0)
      print({ error: 'no_frame', hex })
  }
}

async function encodeMode() {
  let failed = false
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line.trim() === '')
      continue
    try {
      process.stdout.write(encodeRequest(JSON.parse(line)).toString('hex') + '\n')
    } catch (e) {
      console.error(`encode: ${e.message}: ${line}`)
      failed = true
    }
  }
  process.exitCode = failed ? 1 : 0
}

function parseArgs(argv) {
  const opts = {}
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined)
      throw new Error(`bad argument ${argv[i]}`)
    opts[argv[i].slice(2)] = argv[i + 1]
  }
  return opts
}

function gcsMode(opts) {
  const port = Number(opts.port)
  const duration = Number(opts.duration ?? 10)
  const afterMs = Number(opts['after-ms'] ?? 0)
  let paramSet = null
  if (opts['param-set'] !== undefined) {
    const eq = opts['param-set'].indexOf('=')
    if (eq <= 0)
      throw new Error('--param-set wants NAME=VALUE')
    paramSet = { name: opts['param-set'].slice(0, eq), value: Number(opts['param-set'].slice(eq + 1)) }
  }
  const sock = dgram.createSocket('udp4')
  const t0 = Date.now()
  let first = null
  let timer = null

  sock.on('message', (buf, rinfo) => {
    const stamp = { t_ms: Date.now() - t0, from: `${rinfo.address}:${rinfo.port}` }
    const messages = []
    decodeBuffer(buf, m => { messages.push(m); print({ ...stamp, ...m }) })
    if (first || !paramSet)
      return
    first = { rinfo, msg: messages.find(m => !m.error) }
    timer = setTimeout(() => sendParamSet(sock, paramSet, first, opts), afterMs)
  })
  sock.on('listening', () => console.error(`gcs: listening on 127.0.0.1:${port}`))
  sock.bind(port, '127.0.0.1')
  setTimeout(() => {
    clearTimeout(timer)
    sock.close()
  }, duration * 1000)
}

function sendParamSet(sock, paramSet, first, opts) {
  const msg = new common.ParamSet()
  msg.targetSystem = Number(opts['target-sysid'] ?? first.msg?.sysid ?? 1)
  msg.targetComponent = Number(opts['target-compid'] ?? first.msg?.compid ?? 0)
  msg.paramId = paramSet.name
  msg.paramValue = paramSet.value
  msg.paramType = Number(opts['param-type'] ?? 9)	// MAV_PARAM_TYPE_REAL32
  const frame = new MavLinkProtocolV2(255, 190).serialize(msg, 0)
  sock.send(frame, first.rinfo.port, first.rinfo.address)
  console.error(`gcs: sent PARAM_SET ${paramSet.name}=${paramSet.value} ` +
    `to ${first.rinfo.address}:${first.rinfo.port} ` +
    `(target ${msg.targetSystem}/${msg.targetComponent})`)
}

const [mode, ...rest] = process.argv.slice(2)
try {
  if (mode === 'decode')
    await decodeMode()
  else if (mode === 'encode')
    await encodeMode()
  else if (mode === 'verify')
    await verifyMode(parseArgs(rest))
  else if (mode === 'gcs')
    gcsMode(parseArgs(rest))
  else
    throw new Error('usage: mavlink-peer.mjs decode|encode|verify|gcs [options]')
} catch (e) {
  console.error(`mavlink-peer: ${e.message}`)
  process.exit(2)
}
