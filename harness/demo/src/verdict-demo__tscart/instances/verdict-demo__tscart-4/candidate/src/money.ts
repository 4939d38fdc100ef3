/** Formats an amount of cents as dollars: 1234 -> "$12.34", -150 -> "-$1.50". */
export function formatCents(cents: number): string {
  return '$' + (cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 });
}
