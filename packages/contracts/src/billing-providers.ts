/** Billing providers (issue 21): checkout, invoices. Owner: the billing-providers helper. */
export {};
