// A scripted AI SDK model for the README's AI SDK example, run by test/framework-examples.test.ts in
// place of `openai('gpt-4.1-mini')`: it asks for the refund of order 1042 (SCRIPTED_REFUND, JSON),
// and once the conversation ends in tool results it answers with them as JSON, so the example's
// last line is what the model really got back. No network.
import { MockLanguageModelV4 } from 'ai/test';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const refund = JSON.parse(process.env.SCRIPTED_REFUND);

export const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const last = prompt.at(-1);
    if (last?.role === 'tool') {
      const outputs = last.content.filter((part) => part.type === 'tool-result').map((part) => part.output);
      return { content: [{ type: 'text', text: JSON.stringify(outputs) }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
    }
    return {
      content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'refund_order', input: JSON.stringify(refund) }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage,
      warnings: [],
    };
  },
});
