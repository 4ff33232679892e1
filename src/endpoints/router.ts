import { router } from '../trpc/init.ts';
import { createEndpointProcedure } from './create-endpoint.ts';
import { deleteEndpointProcedure } from './delete-endpoint.ts';
import { getEndpointResultProcedure } from './get-endpoint-result.ts';
import { getEndpointProcedure } from './get-endpoint.ts';
import { invokeEndpointProcedure, invokePostEndpointProcedure } from './invoke-endpoint.ts';
import { listEndpointsProcedure } from './list-endpoints.ts';
import { updateEndpointProcedure } from './update-endpoint.ts';

export const endpointsRouter = router({
  create: createEndpointProcedure,
  list: listEndpointsProcedure,
  get: getEndpointProcedure,
  update: updateEndpointProcedure,
  delete: deleteEndpointProcedure,
  invoke: invokeEndpointProcedure,
  invokePost: invokePostEndpointProcedure,
  result: getEndpointResultProcedure,
});
