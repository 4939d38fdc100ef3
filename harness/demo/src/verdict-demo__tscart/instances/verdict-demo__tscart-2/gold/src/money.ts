/** Formats an amount of cents as dollars: 1234 -> "$12.34", -150 -> "-$1.50". */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const cents2 = String(abs % 100).padStart(2, '0');
  return `${sign}$${Math.floor(abs / 100)}.${cents2}`;
}
