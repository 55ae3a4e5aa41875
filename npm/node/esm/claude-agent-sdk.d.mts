export * from '../dist/cjs/integrations/claude-agent-sdk.js';
