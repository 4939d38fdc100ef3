export interface Item {
  sku: string;
  price: number;
  quantity: number;
}

export class Cart {
  private items: Item[] = [];

  add(item: Item): void {
    const line = this.items.find((existing) => existing.sku === item.sku);
    if (line) {
      line.quantity += item.quantity;
      return;
    }
    this.items.push({ ...item });
  }

  remove(sku: string): void {
    this.items = this.items.filter((item) => item.sku !== sku);
  }

  lines(): readonly Item[] {
    return this.items;
  }

  count(): number {
    return this.items.length;
  }

  total(): number {
    return this.items.reduce((sum, item) => sum + item.price * item.quantity, 0);
  }
}
