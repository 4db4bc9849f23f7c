// Moscow business days live beside the workflows, which may import only workflow-safe modules.
export * from '../../workflows/reconciliation/days';
