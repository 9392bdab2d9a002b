// The action types the server builds a sample of for a test request (deletion, message, access
// change, record change): the picker shows what the person will see before it is sent, as the
// server computes it (`GET /api/admin/test-requests/samples`), and the form then names the sample
// (`sample` of `POST /api/admin/test-requests`) instead of writing an action out.
import { SAMPLE_TYPES, type SamplePreview, type SampleType } from './admin-types.ts';
import { api, describeError } from './api.ts';
import { $, $value, el } from './dom.ts';
import { handleAuthError } from './session.ts';

/** type → its preview, once loaded. */
let samples: Partial<Record<SamplePreview['type'], SamplePreview>> | null = null;

/** Whether the server builds the action of `type` (the form then sends `sample: type`). */
export function isSampleType(type: string): type is SampleType {
  return (SAMPLE_TYPES as readonly string[]).includes(type);
}

/** Whether the samples' previews have been loaded. */
export function samplesLoaded(): boolean {
  return samples !== null;
}

/** Loads the samples' previews, then shows the chosen one. A refusal is shown in the preview unless it sent the operator back to sign in. */
export async function loadSamples(): Promise<void> {
  try {
    const answer = await api<{ samples: SamplePreview[] }>('GET', '/test-requests/samples');
    samples = Object.fromEntries(answer.samples.map((sample) => [sample.type, sample]));
    $('sample-error').textContent = '';
  } catch (error) {
    if (!handleAuthError(error)) $('sample-error').textContent = describeError(error);
  }
  showActionFields();
}

/** Shows the fields of the chosen action type only, and for a sample what the person will see. */
export function showActionFields(): void {
  const type = $value('action-type').value;
  const sample = isSampleType(type);
  for (const field of document.querySelectorAll<HTMLElement>('[data-action]')) field.hidden = field.dataset.action === 'sample' ? !sample : field.dataset.action !== type;
  if (sample) renderSample(type);
}

/** The preview of one sample: its title, its warnings, then each line the person reads. */
function renderSample(type: SampleType): void {
  const display = samples?.[type]?.display;
  $('sample-title').textContent = display ? display.title : 'Loading the sample…';
  $('sample-warnings').replaceChildren(...(display?.warnings ?? []).map((warning) => el('li', {}, warning)));
  $('sample-fields').replaceChildren(...(display?.fields ?? []).flatMap((field) => [el('dt', {}, field.label), el('dd', {}, field.value)]));
}
