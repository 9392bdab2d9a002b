import { countText, type ActionDisplay } from '@countersign/shared';
import { h } from '../../ui/dom.ts';
import { bigFigure, fieldsLabelled, labelledList, type CardPart } from './card-part.ts';

/** The message's lines this part shows itself (message.ts in shared). */
const COVERED = ['Channel', 'Recipients', 'For example', 'Subject', 'Message'];

/**
 * A message: the channel, how many recipients, large, and the list they are on; a few of them;
 * then the subject and the body in a quoted box exactly as they will be sent (line breaks kept,
 * `white-space: pre-wrap`, text nodes only: a body is attacker-chosen text).
 */
export function messagePart(action: ActionDisplay): CardPart | null {
  const message = action.message;
  if (!message) return null;
  const under = h('p', { class: 'figure-under' }, 'by ', h('strong', { testid: 'message-channel' }, message.channel), message.list ? h('span', {}, ', list ', h('strong', { class: 'code', testid: 'recipient-list' }, message.list)) : null);
  const element = h(
    'div',
    { class: 'part part-message', testid: 'message' },
    bigFigure({ label: message.recipient_count === 1 ? 'Recipient' : 'Recipients', text: countText(message.recipient_count), count: message.recipient_count, testid: 'recipient-count', under }),
    message.sample.length > 0 ? labelledList({ label: 'For example', items: message.sample, testid: 'recipient-sample' }) : null,
    h(
      'figure',
      { class: 'message-box' },
      h('figcaption', { class: 'part-label' }, 'The message, as it will be sent'),
      h('blockquote', { class: 'message-quote' }, message.subject !== null ? h('p', { class: 'message-subject' }, h('span', { class: 'message-subject-label' }, 'Subject: '), h('span', { testid: 'message-subject' }, message.subject)) : null, h('p', { class: 'message-body', testid: 'message-body' }, message.body)),
    ),
  );
  return { element, covered: fieldsLabelled(action, COVERED) };
}
