/**
 * How deep a stack trace workflow code captures. The SDK (1.24) captures one for every promise workflow
 * code creates, for its stack-trace query, and maps each frame through the bundle's source map: about a
 * fifth of the workflow thread's time under load (issue 38), and it offers no switch. V8 captures at most
 * `Error.stackTraceLimit` frames (10 by default). Preloaded (src/temporal/worker-options.ts), this runs once
 * per workflow thread before the SDK freezes the sandbox's globals, so it holds for every workflow.
 * Four frames are the two of the SDK's promise hook and the two nearest workflow frames; an error thrown
 * in workflow code keeps its four nearest frames.
 */
export const WORKFLOW_STACK_FRAMES = 4;
Error.stackTraceLimit = WORKFLOW_STACK_FRAMES;
