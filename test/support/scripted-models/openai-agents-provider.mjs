// Loaded with `node --import` before the README's OpenAI Agents example, which then runs as it is
// printed there: the default model provider becomes a scripted model (the SDK's own testing
// ScriptedModel) that asks for the refund of order 1042 (SCRIPTED_REFUND, JSON) and then answers
// with the tool output it got. No network, no API key.
import { setDefaultModelProvider } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';

const refund = JSON.parse(process.env.SCRIPTED_REFUND);
const model = new ScriptedModel([[functionCall('refund_order', refund, { callId: 'call_1' })], [assistantMessage('Refunded.')]]);
setDefaultModelProvider({ getModel: async () => model });
