import { now } from '../clock.ts';
import { nullIfNotFound } from '../errors/app-error.ts';
import { emitEvent } from '../events/events.service.ts';
import { getRun, runData } from '../scraping/index.ts';
import { cacheCompletedRun, findEndpointCall } from './endpoint-cache.ts';
import { Endpoint, type EndpointDoc } from './endpoint.model.ts';

type Run = Awaited<ReturnType<typeof getRun>>;
type Verdict = { health: 'ok'; items: number | null } | { health: 'drifted'; errors: string[] };

const itemCount = (data: unknown): number | null =>
  data && typeof data === 'object' && Array.isArray((data as { items?: unknown }).items)
    ? (data as { items: unknown[] }).items.length
    : null;

/**
 * What a run says of its endpoint's output: drifted when its data failed the
 * output schema (the run failed `schema_mismatch`), or had no items where
 * the last healthy result had some; healthy when it completed otherwise.
 * A run that failed for another reason (the site down, no credits) says
 * nothing of the output: null.
 */
async function judge(run: Run, endpoint: EndpointDoc): Promise<Verdict | null> {
  if (run.status === 'failed' && run.errorCode === 'schema_mismatch')
    return { health: 'drifted', errors: [run.error ?? 'schema mismatch'] };
  if (run.status !== 'completed') return null;
  const items = itemCount((await runData(run)).data);
  if (items === 0 && (endpoint.lastHealthyItems ?? 0) > 0)
    return { health: 'drifted', errors: [`no items, where the last healthy result had ${endpoint.lastHealthyItems}`] };
  return { health: 'ok', items };
}

/**
 * Judges an ended run an endpoint started, records the endpoint's health
 * (only from a run that finished after the last one judged), announces a
 * change from healthy or back once (`endpoint.output.drifted` /
 * `recovered`, their subject the run), and caches a completed result that
 * is not drifted. Safe to run twice: the inline invoke and the run's event
 * both call it. Answers the endpoint's health after it, or null when the
 * run is no endpoint's.
 */
export async function settleEndpointRun(runId: string): Promise<'ok' | 'drifted' | null> {
  const call = await findEndpointCall(runId);
  const run = call && (await getRun(call.workspaceId, runId).catch(nullIfNotFound));
  const endpoint = run && (await Endpoint.findById(call.endpointId).lean<EndpointDoc>());
  if (!run?.finishedAt || !endpoint) return null;
  const verdict = await judge(run, endpoint);
  if (verdict?.health !== 'drifted' && run.status === 'completed') await cacheCompletedRun(runId);
  if (!verdict) return endpoint.health ?? 'ok';
  const judgedLater = { _id: endpoint._id, $or: [{ healthAt: null }, { healthAt: { $lte: run.finishedAt } }] };
  const event = { endpoint_id: endpoint._id, slug: endpoint.slug, run_id: runId };
  if (verdict.health === 'drifted') {
    const drift = { at: now(), runId, errors: verdict.errors };
    const changed = await Endpoint.updateOne(
      { ...judgedLater, health: { $ne: 'drifted' } },
      { $set: { health: 'drifted', drift, healthAt: run.finishedAt } },
    );
    if (changed.modifiedCount)
      await emitEvent(endpoint.workspaceId, 'endpoint.output.drifted', { ...event, errors: verdict.errors }, `${endpoint._id}:${runId}`);
    // Already drifted: the drift on record is the first of the spell, and no second event.
    return (await Endpoint.exists({ _id: endpoint._id, health: 'drifted' })) ? 'drifted' : 'ok';
  }
  const healthy = { healthAt: run.finishedAt, ...(verdict.items !== null && { lastHealthyItems: verdict.items }) };
  const recovered = await Endpoint.updateOne({ ...judgedLater, health: 'drifted' }, { $set: { health: 'ok', drift: null, ...healthy } });
  if (recovered.modifiedCount)
    await emitEvent(endpoint.workspaceId, 'endpoint.output.recovered', { ...event, errors: [] }, `${endpoint._id}:${runId}`);
  else await Endpoint.updateOne({ ...judgedLater, health: { $ne: 'drifted' } }, { $set: healthy });
  return (await Endpoint.exists({ _id: endpoint._id, health: 'drifted' })) ? 'drifted' : 'ok';
}
