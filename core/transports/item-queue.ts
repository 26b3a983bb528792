/** A push-to-pull queue: callbacks push items, one consumer iterates them. */
export class ItemQueue<T> implements AsyncIterable<T> {
	private readonly items: T[] = [];
	private waiting: ((result: IteratorResult<T>) => void) | undefined;
	private ended = false;

	push(item: T): void {
		if (this.ended) return;
		if (this.waiting) {
			const resolve = this.waiting;
			this.waiting = undefined;
			resolve({ done: false, value: item });
		} else {
			this.items.push(item);
		}
	}

	end(): void {
		if (this.ended) return;
		this.ended = true;
		if (this.waiting) {
			const resolve = this.waiting;
			this.waiting = undefined;
			resolve({ done: true, value: undefined });
		}
	}

	[Symbol.asyncIterator](): AsyncIterator<T> {
		return {
			next: () => {
				const item = this.items.shift();
				if (item !== undefined) return Promise.resolve({ done: false, value: item });
				if (this.ended) return Promise.resolve({ done: true, value: undefined });
				return new Promise((resolve) => {
					this.waiting = resolve;
				});
			},
			return: () => {
				this.end();
				return Promise.resolve({ done: true, value: undefined });
			},
		};
	}
}
