// The action types the server builds a sample of for a test request (deletion, message, access
// change, record change): the picker shows what the person will see before it is sent, as the
// server computes it (`GET /api/admin/test-requests/samples`), and the form then names the sample
// (`sample` of `POST /api/admin/test-requests`) instead of writing an action out.

import { $, el } from './console-dom.js';

/** The types sent as a server-built sample; a payment and a tool call have a form of their own. */
const SAMPLE_TYPES = ['deletion', 'message', 'access_change', 'record_change'];

/** type → `{type, label, display}`, once loaded. */
let samples = null;

/** Whether the server builds the action of `type` (the form then sends `sample: type`). */
export function isSampleType(type) {
  return SAMPLE_TYPES.includes(type);
}

/** Whether the samples' previews have been loaded. */
export function samplesLoaded() {
  return samples !== null;
}

/**
 * Loads the samples' previews with `api` (the console's admin API call), then shows the chosen
 * one. A refusal is shown in the preview unless `handleAuthError` took it (a token no longer good).
 */
export async function loadSamples(api, handleAuthError) {
  try {
    const answer = await api('GET', '/test-requests/samples');
    samples = Object.fromEntries(answer.samples.map((sample) => [sample.type, sample]));
    $('sample-error').textContent = '';
  } catch (error) {
    if (!handleAuthError(error)) $('sample-error').textContent = `${error.code}: ${error.message}`;
  }
  showActionFields();
}

/** Shows the fields of the chosen action type only, and for a sample what the person will see. */
export function showActionFields() {
  const type = $('action-type').value;
  const sample = isSampleType(type);
  for (const field of document.querySelectorAll('[data-action]')) field.hidden = field.dataset.action === 'sample' ? !sample : field.dataset.action !== type;
  if (sample) renderSample(type);
}

/** The preview of one sample: its title, its warnings, then each line the person reads. */
function renderSample(type) {
  const display = samples?.[type]?.display;
  $('sample-title').textContent = display ? display.title : 'Loading the sample…';
  $('sample-warnings').replaceChildren(...(display?.warnings ?? []).map((warning) => el('li', {}, warning)));
  $('sample-fields').replaceChildren(...(display?.fields ?? []).flatMap((field) => [el('dt', {}, field.label), el('dd', {}, field.value)]));
}
