// The chrome-json exports in a real viewer: speedscope (from the npm
// registry, under build/browser) in headless Chromium driven by
// playwright-core. scripts/test_browser runs it; see there.
//
//   node scripts/test_browser.mjs CHROMIUM SPEEDSCOPE_DIR OUT_DIR NAME=FILE.json...
//
// Each file is loaded as speedscope's own page loads a profile from a URL
// (#profileURL=...), served from a made-up http origin by the browser's
// request interception (speedscope loads URLs only over http(s)). A file
// fails on an import error (speedscope's "Something went wrong", an
// alert such as "Unrecognized format", a page error, a console error) or
// a console warning of its trace-event importer: a frame ended that is
// not on top of the stack, a frame still open at the end (slices that do
// not nest), an empty profile. The first file's flame chart is kept as a
// screenshot in OUT_DIR. A NAME written !NAME is a trace made to mis-nest:
// it must draw a nesting warning (the test's own check that it can fail).
// One PASS/FAIL line per file; exit 1 if one failed.
import { readFileSync, existsSync } from 'node:fs';
import { join, extname } from 'node:path';
import { createRequire } from 'node:module';

const [chromiumPath, speedscopeDir, outDir, ...specs] = process.argv.slice(2);
const require = createRequire(join(outDir, 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');

const origin = 'http://speedscope.invalid';
const types = {
	'.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
	'.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
	'.ico': 'image/x-icon', '.woff2': 'font/woff2', '.txt': 'text/plain',
};
// the importer's complaints about slices that do not nest, and others
const bad = [/Tried to end/, /still open at end of profile/, /Empty profile/,
	/Unexpected .* format/, /Failed to load format/, /Ignoring/];

let failed = false;
const result = (ok, what, why) => {
	if (ok) {
		console.log(`PASS: browser ${what}`);
	} else {
		failed = true;
		console.log(`FAIL: browser ${what}: ${why}`);
	}
};

const profiles = new Map();
const misnested = new Set();
for (const spec of specs) {
	const i = spec.indexOf('=');
	let name = spec.slice(0, i);
	if (name.startsWith('!')) {
		name = name.slice(1);
		misnested.add(name);
	}
	profiles.set(name, spec.slice(i + 1));
}

const browser = await chromium.launch({
	executablePath: chromiumPath,
	headless: true,
	// root in a container has no user namespaces for Chromium's sandbox
	args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
await context.route(`${origin}/**`, async (route) => {
	const path = new URL(route.request().url()).pathname;
	let file;
	if (path.startsWith('/profiles/'))
		file = profiles.get(decodeURIComponent(path.slice('/profiles/'.length)));
	else
		file = join(speedscopeDir, path === '/' ? 'index.html' : path.slice(1));
	if (!file || !existsSync(file))
		return route.fulfill({ status: 404, body: 'not found' });
	return route.fulfill({
		status: 200,
		contentType: types[extname(file)] || 'application/octet-stream',
		body: readFileSync(file),
	});
});

let first = true;
for (const [name, file] of profiles) {
	const page = await context.newPage();
	const complaints = [];
	page.on('console', (msg) => {
		const text = msg.text();
		if (msg.type() === 'error' || bad.some((re) => re.test(text)))
			complaints.push(`console ${msg.type()}: ${text}`);
	});
	page.on('pageerror', (e) => complaints.push(`page error: ${e.message}`));
	page.on('dialog', async (d) => {
		complaints.push(`alert: ${d.message()}`);
		await d.dismiss();
	});
	const started = Date.now();
	const url = `${origin}/index.html#profileURL=${encodeURIComponent(`${origin}/profiles/${name}`)}` +
		`&title=${encodeURIComponent(name)}`;
	// a file without slices (only instants, which speedscope does not
	// show) must be reported empty, and nothing else
	const doc = JSON.parse(readFileSync(file, 'utf8'));
	const slices = doc.traceEvents.filter((e) => ['X', 'B', 'E'].includes(e.ph)).length;
	const empty = /imported profile, but it's empty/;
	let state = 'timeout';
	try {
		await page.goto(url, { waitUntil: 'load' });
		// loaded: speedscope names the page after the profile; failed:
		// its error text, or an alert
		for (const end = Date.now() + 60000; Date.now() < end; await page.waitForTimeout(100)) {
			state = await page.evaluate((n) => {
				if (document.body.innerText.includes('Something went wrong'))
					return 'error';
				if (document.title.startsWith(n) && document.querySelector('canvas'))
					return 'loaded';
				return 'timeout';
			}, name);
			if (state !== 'timeout' || complaints.some((c) => c.startsWith('alert')))
				break;
		}
		// the importer's warnings come while it builds the profile; let
		// the flame chart draw
		await page.waitForTimeout(500);
	} catch (e) {
		complaints.push(`not loaded: ${e.message.split('\n')[0]}`);
	}
	const ms = Date.now() - started;
	if (misnested.has(name)) {
		const nesting = complaints.filter((c) => /Tried to end|still open/.test(c));
		result(nesting.length > 0,
			`a mis-nested trace (${name}) draws speedscope's nesting warning (${ms} ms)`,
			`${state}; no nesting warning, complaints: ${complaints.slice(0, 3).join(' | ')}`);
		await page.close();
		continue;
	}
	if (slices === 0) {
		result(complaints.length === 1 && empty.test(complaints[0]),
			`speedscope says ${name} (no slices, ${doc.traceEvents.length} events) is empty, no other error (${ms} ms)`,
			`${state}; ${complaints.length} complaints: ${complaints.slice(0, 3).join(' | ')}`);
		await page.close();
		continue;
	}
	result(state === 'loaded' && complaints.length === 0,
		`speedscope opens ${name} (${slices} slices) with no import error or nesting warning (${ms} ms)`,
		`${state}; ${complaints.length} complaints, first: ${complaints.slice(0, 3).join(' | ')}`);
	if (first && state === 'loaded') {
		const shot = join(outDir, 'speedscope.png');
		await page.screenshot({ path: shot });
		console.log(`# screenshot of ${name}: ${shot}`);
		first = false;
	}
	await page.close();
}
await browser.close();
process.exit(failed ? 1 : 0);
