import mongoose, { Schema } from 'mongoose';

/**
 * How many times each queued job has started, by Agenda job id: Agenda
 * counts failures but not starts, and a job whose worker died never failed.
 * Entries are removed when the job ends, so the collection stays small.
 */
const JobAttempts = mongoose.model(
  'JobAttempts',
  new Schema({ _id: { type: String, required: true }, starts: { type: Number, default: 0 } }, { versionKey: false }),
  'job_attempts',
);

/** Records one more start of the job and returns how many there have been. */
export async function countJobStart(jobId: string): Promise<number> {
  const counted = await JobAttempts.findOneAndUpdate(
    { _id: jobId },
    { $inc: { starts: 1 } },
    { upsert: true, returnDocument: 'after' },
  ).lean();
  return counted!.starts;
}

export async function forgetJobStarts(jobId: string): Promise<void> {
  await JobAttempts.deleteOne({ _id: jobId });
}
