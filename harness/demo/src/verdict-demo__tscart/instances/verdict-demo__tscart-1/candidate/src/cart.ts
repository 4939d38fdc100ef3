export interface Item {
  sku: string;
  price: number;
  quantity: number;
}

export class Cart {
  private items: Item[] = [];

  add(item: Item): void {
    const index = this.items.findIndex((existing) => existing.sku === item.sku);
    if (index === -1) {
      this.items.push({ ...item });
    } else {
      const line = this.items[index];
      this.items[index] = { ...line, quantity: line.quantity + item.quantity };
    }
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
