export interface Item {
  sku: string;
  price: number;
  quantity: number;
}

export class Cart {
  private items: Item[] = [];

  add(item: Item): void {
    this.items.push({ ...item });
  }

  remove(sku: string): void {
    if (!this.items.some((item) => item.sku === sku)) {
      throw new Error(`no ${sku} in the cart`);
    }
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
