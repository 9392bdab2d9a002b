/** How a tool describes itself to a tool runner (and through it to a model). */
export interface ToolDefinition {
  /** The tool's name, snake_case. */
  name: string;
  /** What it does and how to call it, for a model to read. */
  description: string;
  /** True when the tool runs only with a person's approval and so takes two turns. */
  requiresApproval: boolean;
  /** The arguments as a JSON Schema (draft 2020-12) object schema. */
  parameters: Record<string, unknown>;
}

/** The `refund_order` tool's definition, for a tool runner to list. */
export const refundOrderDefinition = {
  name: 'refund_order',
  description:
    'Refunds an amount on a customer order. Needs a person\'s approval: called without `approval` it only asks ' +
    'for it and returns `approval_required` with a preview; once the person approved, call it again with the ' +
    'same arguments and `approval` ({auth_req_id, access_token}). Changed arguments are refused.',
  requiresApproval: true,
  parameters: {
    type: 'object',
    properties: {
      order_id: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,57}$', description: 'The order to refund.' },
      amount_minor: {
        type: 'integer',
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Amount in the currency\'s minor unit (cents for EUR): 490.00 EUR is 49000.',
      },
      currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. EUR.' },
      reason: { type: 'string', minLength: 1, maxLength: 5000, description: 'Why; shown to the approver.' },
      approval: {
        type: 'object',
        description: 'Only on the second call, after the person approved.',
        properties: {
          auth_req_id: { type: 'string', minLength: 1 },
          access_token: { type: 'string', minLength: 1 },
        },
        required: ['auth_req_id', 'access_token'],
        additionalProperties: false,
      },
    },
    required: ['order_id', 'amount_minor', 'currency', 'reason'],
    additionalProperties: false,
  },
} as const satisfies ToolDefinition;
