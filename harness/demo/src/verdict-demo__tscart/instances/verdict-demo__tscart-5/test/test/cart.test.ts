import { Cart } from '../src/cart';

describe('Cart', () => {
  let cart: Cart;

  beforeEach(() => {
    cart = new Cart();
  });

  describe('add', () => {
    it('adds a line', () => {
      cart.add({ sku: 'apple', price: 50, quantity: 2 });
      expect(cart.lines()).toHaveLength(1);
    });

    it('keeps different skus apart', () => {
      cart.add({ sku: 'apple', price: 50, quantity: 1 });
      cart.add({ sku: 'pear', price: 70, quantity: 1 });
      expect(cart.lines()).toHaveLength(2);
    });
  });

  describe('remove', () => {
    it('removes a line', () => {
      cart.add({ sku: 'apple', price: 50, quantity: 1 });
      cart.remove('apple');
      expect(cart.lines()).toHaveLength(0);
    });
  });

  describe('count', () => {
    it('sums the quantities', () => {
      cart.add({ sku: 'apple', price: 50, quantity: 3 });
      cart.add({ sku: 'pear', price: 70, quantity: 1 });
      expect(cart.count()).toBe(4);
    });

    it('is zero for an empty cart', () => {
      expect(cart.count()).toBe(0);
    });
  });

  describe('total', () => {
    it('is zero for an empty cart', () => {
      expect(cart.total()).toBe(0);
    });

    it('multiplies price by quantity', () => {
      cart.add({ sku: 'apple', price: 50, quantity: 3 });
      cart.add({ sku: 'pear', price: 70, quantity: 1 });
      expect(cart.total()).toBe(220);
    });
  });
});
