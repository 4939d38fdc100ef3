/** Formats an amount of cents as dollars: 1234 -> "$12.34", -150 -> "-$1.50". */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padEnd(2, '0')}`;
}
