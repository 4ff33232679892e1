/** The schedules domain's front door: starting the runs that are due (the worker's job does, and tests may). */
export { fireDueSchedules } from './schedules.service.ts';
