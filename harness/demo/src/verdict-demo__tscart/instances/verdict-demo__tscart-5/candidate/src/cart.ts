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
    this.items = this.items.filter((item) => item.sku !== sku);
  }

  lines(): readonly Item[] {
    return this.items;
  }

  count(): number {
    return this.items.reduce((sum, item) => sum + item.quantity);
  }

  total(): number {
    return this.items.reduce((sum, item) => sum + item.price * item.quantity, 0);
  }
}
