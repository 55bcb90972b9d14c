// SPDX-License-Identifier: GPL-3.0-or-later
//
// barod end to end: the daemon runs for real with a UDP output to this
// script, which plays the ground station.  Every datagram is decoded by a
// third-party MAVLink implementation (node-mavlink) and checked against
// barod's own --record file and against baro-sim run offline with the same
// settings.  Half way through, the "GCS" sends PARAM_SET SIM_BARO_GLITCH=10
// and the published pressure must move by exactly a 10 m glitch from the
// next sample on.
//
// Environment: BAROD, BARO_SIM (binaries), MAVLINK_PEER_DIR (where
// node-mavlink is installed).

import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';

// Without node-mavlink (a clean clone before 'npm ci'): skip, saying why,
// unless it is required (-Dnode_peer=enabled).
const peerModule = path.join(process.env.MAVLINK_PEER_DIR, 'node_modules', 'node-mavlink');
if (!fs.existsSync(peerModule)) {
	const why = `node-mavlink is not installed (${peerModule}); ` +
		"'npm ci --prefix tests/harness/node-mavlink' or './dev deps' installs it";
	if (process.env.MAVLINK_PEER_REQUIRED === '1') {
		console.error(`required (-Dnode_peer=enabled): ${why}`);
		process.exit(1);
	}
	console.error(`skipped: ${why}`);
	process.exit(77);
}
const require = createRequire(path.join(process.env.MAVLINK_PEER_DIR, 'package.json'));
const mav = require('node-mavlink');
const REGISTRY = { ...mav.minimal.REGISTRY, ...mav.common.REGISTRY };

const DURATION_S = 4;
const SET_AFTER_MS = 1500;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'barod-udp-'));
const recordPath = path.join(tmp, 'record.csv');
const common = ['--atmosphere', '1976', '--home-alt', '584', '--seed', '3',
	'-p', 'SIM_BARO_COUNT=3', '-p', 'SIM_BARO_RND=0'];

function readCsv(text) {
	const lines = text.trim().split('\n');
	assert.equal(lines[0], 'time_ms,instance,alt_m,pressure_pa,temperature_c');
	return lines.slice(1).map((l) => {
		const [t, i, a, p, T] = l.split(',');
		return { t: Number(t), i: Number(i), alt: Number(a),
			 p: Math.fround(Number(p)), T: Math.fround(Number(T)) };
	});
}

// Offline expectation: baro-sim with barod's 100 Hz call times.
function baroSim(extra) {
	const r = spawnSync(process.env.BARO_SIM, [...common, ...extra,
		'--generate', 'static:10', '--rate', '100',
		'--duration', String(DURATION_S + 1)], { encoding: 'utf8' });
	assert.equal(r.status, 0, r.stderr);
	const byKey = new Map();
	for (const s of readCsv(r.stdout)) byKey.set(`${s.t}/${s.i}`, s);
	return byKey;
}

const f32 = Math.fround;
const hPa = (p) => f32(p * f32(0.01));
const cdeg = (T) => Math.trunc(f32(T * 100));

async function main() {
	const sock = dgram.createSocket('udp4');
	await new Promise((res) => sock.bind(0, '127.0.0.1', res));
	const port = sock.address().port;

	const input = new PassThrough();
	const splitter = new mav.MavLinkPacketSplitter();
	const packets = [];
	input.pipe(splitter).pipe(new mav.MavLinkPacketParser()).on('data', (packet) => {
		const clazz = REGISTRY[packet.header.msgid];
		packets.push({ header: packet.header,
			name: clazz ? clazz.MSG_NAME : String(packet.header.msgid),
			data: clazz ? packet.protocol.data(packet.payload, clazz) : null });
	});

	let barodAddr = null;
	let setSent = false;
	sock.on('message', (buf, rinfo) => {
		input.write(buf);
		if (!barodAddr) {
			barodAddr = rinfo;
			// The GCS answers where the vehicle's packets come from.
			setTimeout(() => {
				const m = new mav.common.ParamSet();
				m.targetSystem = 1;
				m.targetComponent = 191;
				m.paramId = 'SIM_BARO_GLITCH';
				m.paramValue = 10;
				m.paramType = mav.common.MavParamType.REAL32;
				const frame = new mav.MavLinkProtocolV2(255, 190).serialize(m, 0);
				sock.send(frame, barodAddr.port, barodAddr.address);
				setSent = true;
			}, SET_AFTER_MS);
		}
	});

	const barod = spawn(process.env.BAROD, ['--sim', ...common,
		'--profile', 'static:10', '--control', 'none',
		'-o', `udp:127.0.0.1:${port}`, '--record', recordPath,
		'--duration', String(DURATION_S), '-v'], { stdio: ['ignore', 'inherit', 'pipe'] });
	let stderr = '';
	barod.stderr.on('data', (d) => { stderr += d; });
	const status = await new Promise((res) => barod.on('exit', (code) => res(code)));
	await new Promise((res) => setTimeout(res, 200));
	sock.close();
	input.end();
	await new Promise((res) => setImmediate(res));
	process.stderr.write(stderr);
	assert.equal(status, 0, 'barod exit status');
	assert.ok(setSent, 'PARAM_SET was sent');

	// Every datagram decoded with a good CRC; nothing unknown.
	assert.equal(splitter.invalidPackages, 0, 'frames with a bad CRC');
	assert.equal(splitter.unknownPackagesCount, 0, 'unknown messages');
	assert.ok(packets.length > 1000, `only ${packets.length} packets`);

	// One sender, one sequence: no frame lost on the way.
	for (let k = 1; k < packets.length; k++) {
		const h = packets[k].header;
		assert.equal(h.sysid, 1);
		assert.equal(h.compid, 191);
		assert.equal(h.seq, (packets[k - 1].header.seq + 1) & 0xff,
			`sequence gap before packet ${k}`);
	}

	const heartbeats = packets.filter((p) => p.name === 'HEARTBEAT');
	assert.ok(heartbeats.length >= DURATION_S && heartbeats.length <= DURATION_S + 1,
		`${heartbeats.length} heartbeats in ${DURATION_S} s`);
	for (const hb of heartbeats) {
		assert.equal(hb.data.type, 18);		// ONBOARD_CONTROLLER
		assert.equal(hb.data.autopilot, 8);	// INVALID
		assert.equal(hb.data.mavlinkVersion, 3);
	}

	// Every recorded sample was published, and only those.
	const record = readCsv(fs.readFileSync(recordPath, 'utf8'));
	const names = ['SCALED_PRESSURE', 'SCALED_PRESSURE2', 'SCALED_PRESSURE3'];
	const pressures = packets.filter((p) => names.includes(p.name));
	assert.equal(pressures.length, record.length, 'published vs recorded samples');
	assert.equal(record.length, 3 * DURATION_S * 100);
	for (let k = 0; k < record.length; k++) {
		const r = record[k], p = pressures[k];
		assert.equal(p.name, names[r.i]);
		assert.equal(p.data.timeBootMs, r.t);
		assert.equal(f32(p.data.pressAbs), hPa(r.p), `sample ${k} press_abs`);
		assert.equal(p.data.temperature, cdeg(r.T), `sample ${k} temperature`);
		assert.equal(p.data.pressDiff, 0);
	}

	// Before the PARAM_SET, barod equals baro-sim bit for bit (noise on
	// instances 1 and 2 included); after it, instance 0 equals baro-sim
	// with the glitch, from the very next sample.
	const plain = baroSim([]);
	const glitched = baroSim(['-p', 'SIM_BARO_GLITCH=10']);
	const echoIdx = packets.findIndex((p) => p.name === 'PARAM_VALUE' &&
		p.data.paramId === 'SIM_BARO_GLITCH');
	assert.ok(echoIdx > 0, 'PARAM_VALUE echo of SIM_BARO_GLITCH');
	assert.equal(packets[echoIdx].data.paramValue, 10);
	assert.ok(packets.slice(echoIdx).some((p) => p.name === 'STATUSTEXT' &&
		p.data.text.includes('SIM_BARO_GLITCH 0 -> 10')), 'STATUSTEXT');
	let before = 0, after = 0;
	for (let k = 0; k < packets.length; k++) {
		const p = packets[k];
		if (p.name !== 'SCALED_PRESSURE') continue;
		const key = `${p.data.timeBootMs}/0`;
		const want = (k < echoIdx ? plain : glitched).get(key);
		assert.ok(want, `baro-sim has no sample ${key}`);
		assert.equal(f32(p.data.pressAbs), hPa(want.p),
			`${k < echoIdx ? 'before' : 'after'} the glitch, t=${p.data.timeBootMs}`);
		if (k < echoIdx) before++; else after++;
	}
	assert.ok(before > 100 && after > 100, `${before} before, ${after} after`);
	for (const i of [1, 2]) {
		for (const r of record.filter((s) => s.i === i)) {
			const want = plain.get(`${r.t}/${i}`);
			assert.equal(r.p, want.p, `instance ${i} t=${r.t}`);
		}
	}
	// A 10 m glitch at 594 m is about 112 Pa.
	const firstAfter = packets.slice(echoIdx).find((p) => p.name === 'SCALED_PRESSURE');
	const lastBefore = packets.slice(0, echoIdx).reverse().find((p) => p.name === 'SCALED_PRESSURE');
	const shift = (lastBefore.data.pressAbs - firstAfter.data.pressAbs) * 100;
	assert.ok(shift > 110 && shift < 115, `shift ${shift} Pa`);
	assert.ok(firstAfter.data.timeBootMs - lastBefore.data.timeBootMs <= 10,
		'glitch visible within one sample period');

	fs.rmSync(tmp, { recursive: true, force: true });
	console.log(`ok: ${packets.length} packets, ${pressures.length} pressure samples, ` +
		`${heartbeats.length} heartbeats, glitch shift ${shift.toFixed(2)} Pa`);
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
