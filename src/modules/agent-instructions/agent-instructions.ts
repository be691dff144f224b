import { FREE_DOC } from '../../graphql/free-form.js';
import { builder } from '../../graphql/builder.js';
import { OrganizationType } from '../orgs/index.js';
import { getAgentInstructions, updateAgentInstructions, type AgentInstructionsView } from './service.js';

export const AgentInstructionsType = builder.objectRef<AgentInstructionsView>('AgentInstructions').implement({
  description: "Instructions for the organization's docs agent",
  fields: (t) => ({
    object: t.string({ resolve: () => 'agent-instructions' }),
    instructions: t.field({ type: 'JSON', description: `${FREE_DOC}The instructions`, resolve: (a) => a.instructions }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedBy: t.exposeString('updatedBy', { description: 'Id of the user who last changed them (empty: never changed)' }),
    urls: t.field({
      type: builder
        .objectRef<{ location: string }>('AgentInstructionsUrls')
        .implement({ fields: (u) => ({ location: u.exposeString('location') }) }),
      resolve: (a, _args, ctx) => ctx.urls.agentInstructions(a.organizationId),
    }),
  }),
});

builder.objectField(OrganizationType, 'agentInstructions', (t) =>
  t.field({ type: AgentInstructionsType, resolve: (org, _args, ctx) => getAgentInstructions(ctx, org.id) }),
);

const UpdateAgentInstructionsInput = builder.inputType('UpdateAgentInstructionsInput', {
  fields: (t) => ({ instructions: t.field({ type: 'JSON', required: true, description: `${FREE_DOC}The instructions` }) }),
});

builder.mutationField('updateAgentInstructions', (t) =>
  t.field({
    type: AgentInstructionsType,
    description: "Replace the organization's docs agent instructions (admins)",
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: UpdateAgentInstructionsInput, required: true }) },
    resolve: (_r, { organizationId, input }, ctx) => updateAgentInstructions(ctx, String(organizationId), input.instructions),
  }),
);
