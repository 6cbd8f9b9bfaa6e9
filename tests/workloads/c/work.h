struct job {
	unsigned long from, to, sum;
	long tid;
};

void *work(void *arg);
