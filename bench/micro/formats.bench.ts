/**
 * Per-request and per-chunk costs of the format layer (libs/formats), the parts of the hot
 * path that scale with body and stream size. Vitest 5 style: benchmarks are registered with the
 * test context's `bench` and run together by `bench.compare`, which prints one table per test.
 */
import { wireFormats } from '@switchyard/formats';
import { test } from 'vitest';
import { FORMATS, REQUEST_BODIES, REQUEST_CONTEXT, RUN, upstreamEvents } from './fixtures.ts';

test('body parse + validation (JSON.parse → request.toCanonical)', async ({ bench }) => {
  await bench.compare(
    ...FORMATS.map((format) => {
      const text = REQUEST_BODIES[format];
      // Module exports are read once, outside the timed function (vitest's module runner wraps them in getters).
      const request = wireFormats[format].request;
      return bench(format, () => {
        request.toCanonical(JSON.parse(text), REQUEST_CONTEXT);
      });
    }),
    RUN,
  );
});

test('request translation (JSON.parse → X.request.toCanonical → Y.request.fromCanonical → JSON.stringify)', async ({ bench }) => {
  const registrations = [];
  for (const from of FORMATS) {
    for (const to of FORMATS) {
      if (from === to) continue;
      const text = REQUEST_BODIES[from];
      const decode = wireFormats[from].request;
      const encode = wireFormats[to].request;
      registrations.push(
        bench(`${from} → ${to}`, () => {
          const canonical = decode.toCanonical(JSON.parse(text), REQUEST_CONTEXT);
          JSON.stringify(encode.fromCanonical(canonical, { model: 'upstream-model', maxOutputTokens: 4096 }).body);
        }),
      );
    }
  }
  await bench.compare(...registrations, RUN);
});

test('stream translation, one whole 50-chunk stream per iteration (upstream decoder.push → client encoder.push); divide by the event count for per chunk', async ({ bench }) => {
  const registrations = [];
  for (const upstream of FORMATS) {
    const events = upstreamEvents(upstream);
    const upstreamStream = wireFormats[upstream].stream;
    // Same format: the router relays bytes and runs only the decoder beside them (usage, truncation).
    registrations.push(
      bench(`${upstream} → ${upstream} (decoder only, ${events.length} events)`, () => {
        const decoder = upstreamStream.createDecoder();
        for (const event of events) decoder.push(event);
        decoder.end();
      }),
    );
    for (const client of FORMATS) {
      if (client === upstream) continue;
      const clientStream = wireFormats[client].stream;
      registrations.push(
        bench(`${upstream} → ${client} (${events.length} events)`, () => {
          const decoder = upstreamStream.createDecoder();
          const encoder = clientStream.createEncoder({ model: 'bench-model', requestId: 'req_bench', includeUsage: true });
          let out = 0;
          for (const event of events) for (const part of decoder.push(event)) out += encoder.push(part).length;
          for (const part of decoder.end()) out += encoder.push(part).length;
          if (out === 0) throw new Error('encoder wrote nothing');
        }),
      );
    }
  }
  await bench.compare(...registrations, RUN);
});

test('same-format relay, one whole 50-chunk stream per iteration: stream decoder vs relay monitor (usage read once at the end); divide by the event count for per event', async ({ bench }) => {
  const registrations = [];
  for (const format of FORMATS) {
    const events = upstreamEvents(format);
    const stream = wireFormats[format].stream;
    registrations.push(
      bench(`${format} decoder (${events.length} events)`, () => {
        const decoder = stream.createDecoder();
        for (const event of events) decoder.push(event);
        decoder.end();
      }),
      bench(`${format} relay monitor (${events.length} events)`, () => {
        const monitor = stream.createRelayMonitor();
        for (const event of events) monitor.push(event);
        monitor.end();
        if (!monitor.finished || monitor.usage === undefined) throw new Error('the monitor missed the finish');
      }),
    );
  }
  await bench.compare(...registrations, RUN);
});
