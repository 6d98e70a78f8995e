import { allPlans, planProviders, type PlanProvider } from '@herald/contracts';
import { loadConfig } from '../config.ts';
import { connectDatabase } from '../db/database.ts';
import { AppError } from '../http/errors.ts';
import { assignPlan } from '../features/billing/plan-assignment.ts';
import { CliError, type CliCommand } from './cli-command.ts';

const usage =
  'plan <accountId> <planName> <peopleUpperLimit> [--provider=operator|chargebee|paypal|marketplace] [--canceled]';
const wholeNumber = /^\d{1,12}$/;

/**
 * `npm run cli -- plan <accountId> <planName> <peopleUpperLimit>`: give an account a plan without a payment provider
 * (an invoice paid by bank transfer, a partner deal). Goes through assignPlan: the catalogue, the people-count check.
 */
export const planCommand: CliCommand = {
  name: 'plan',
  usage,
  async run(args) {
    const flags = args.filter((a) => a.startsWith('--'));
    const [accountId, planName, limit, ...extra] = args.filter((a) => !a.startsWith('--'));
    if (
      !accountId ||
      !planName ||
      !limit ||
      extra.length ||
      !wholeNumber.test(accountId) ||
      !wholeNumber.test(limit)
    ) {
      throw new CliError(
        `Usage: npm run cli -- ${usage}\nPlans: ${[...new Set(allPlans.map((p) => p.name))].join(', ')}`,
      );
    }
    let provider: PlanProvider = 'operator';
    let status: 'active' | 'canceled' = 'active';
    for (const flag of flags) {
      const [key, value] = flag.slice(2).split('=');
      if (key === 'provider' && planProviders.includes(value as PlanProvider))
        provider = value as PlanProvider;
      else if (key === 'canceled' && value === undefined) status = 'canceled';
      else throw new CliError(`Unknown option ${flag}.\nUsage: npm run cli -- ${usage}`);
    }
    const database = await connectDatabase(loadConfig(), () => undefined);
    try {
      const result = await assignPlan(database.db, Number(accountId), {
        planName,
        peopleUpperLimit: Number(limit),
        provider,
        status,
      });
      const { plan } = result;
      const price =
        plan.price === null
          ? 'price not shown'
          : `$${plan.price} per ${plan.period === 'lifetime' ? 'lifetime' : plan.period}`;
      console.log(
        result.changed
          ? `Account ${accountId} is now on ${plan.name} up to ${plan.peopleUpperLimit} people (${price}), status ${result.status}.`
          : `Account ${accountId} already has ${plan.name} up to ${plan.peopleUpperLimit} people, status ${result.status}: nothing changed.`,
      );
    } catch (error) {
      if (error instanceof AppError) throw new CliError(error.message);
      throw error;
    } finally {
      await database.close();
    }
  },
};
