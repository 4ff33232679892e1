/** The credits domain's front door: balances, debits and the usage accounts work is charged to. */
export {
  closeUsage,
  creditKinds,
  creditsExhausted,
  daysBefore,
  debitCredits,
  getBalances,
  localDate,
  openUsage,
  setBalances,
  spendingByDay,
  usageOf,
  UsageAccountClosedError,
  type Balances,
  type Usage,
} from './credits.service.ts';
