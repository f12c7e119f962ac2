// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tempo_chan: Tempo's channels (docs/channels.md) as /dev/tempo/NAME.
 *
 * Tempo shows each channel of a Linux partition as a PCI function with
 * QEMU ivshmem's IDs (hv/core/chan_pci_abi.h): BAR0 holds the registers,
 * BAR2 the shared memory, and one MSI vector takes the doorbells. A function
 * whose BAR0 does not read TEMPO_CHAN_MAGIC_VALUE is QEMU's own ivshmem: it
 * gets a device too, named ivshmem-<PCI slot>, with its whole BAR2 and no
 * doorbells, which is how the module is tested without Tempo (ivshmem_ro=1
 * makes those read-only, to test a ro channel's mappings).
 *
 * The user-space ABI is in tempo_chan_uapi.h.
 */
#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "hv/core/chan_pci_abi.h"
#include "guests/linux/tempo_chan_uapi.h"

#define DRV_NAME	"tempo_chan"
#define BAR_REGS	0
#define BAR_MEM		2

static bool ivshmem_ro;
module_param(ivshmem_ro, bool, 0444);
MODULE_PARM_DESC(ivshmem_ro, "Map QEMU ivshmem functions read-only, as a ro channel (default: rw)");

struct tempo_chan {
	struct kref ref;		/* the probe's, and one per open file */
	struct miscdevice misc;
	char misc_name[TEMPO_CHAN_INFO_NAME_LEN + 8];	/* tempo-NAME, in /sys/class/misc */
	char node_name[TEMPO_CHAN_INFO_NAME_LEN + 8];	/* tempo/NAME, under /dev */
	struct tempo_chan_info info;	/* fixed at probe, but for .doorbells */
	phys_addr_t mem_phys;		/* BAR2's bus address (CPU physical on x86) */
	void __iomem *regs;		/* BAR0; valid while !gone */
	int irq;			/* the MSI's Linux IRQ, or -1 */
	atomic64_t doorbells;
	wait_queue_head_t wait;		/* readers and pollers: a doorbell, or gone */
	struct mutex lock;		/* gone, files, and the registers while a ring uses them */
	bool gone;			/* the PCI function was removed */
	struct list_head files;
};

struct tempo_chan_file {
	struct tempo_chan *chan;
	struct list_head node;		/* in chan->files */
	struct address_space *mapping;	/* what remove zaps */
	u64 seen;			/* the doorbell count read() last returned */
};

static void tempo_chan_free(struct kref *ref)
{
	kfree(container_of(ref, struct tempo_chan, ref));
}

static irqreturn_t tempo_chan_irq(int irq, void *data)
{
	struct tempo_chan *chan = data;

	/*
	 * Unshared MSI: every message is a doorbell. INTR_STATUS is not read:
	 * BAR0 traps, and a register read here would put an exit on every
	 * doorbell the receiver takes, where Tempo's direct mode has none.
	 */
	atomic64_inc(&chan->doorbells);
	wake_up_interruptible_all(&chan->wait);
	return IRQ_HANDLED;
}

static int tempo_chan_open(struct inode *inode, struct file *file)
{
	/* misc_open() calls this under misc_mtx, which misc_deregister() takes too. */
	struct tempo_chan *chan = container_of(file->private_data, struct tempo_chan, misc);
	struct tempo_chan_file *cf;

	cf = kzalloc(sizeof(*cf), GFP_KERNEL);
	if (!cf)
		return -ENOMEM;
	cf->mapping = file->f_mapping;
	mutex_lock(&chan->lock);
	if (chan->gone) {
		mutex_unlock(&chan->lock);
		kfree(cf);
		return -ENODEV;
	}
	kref_get(&chan->ref);
	cf->chan = chan;
	cf->seen = atomic64_read(&chan->doorbells);
	list_add(&cf->node, &chan->files);
	mutex_unlock(&chan->lock);
	file->private_data = cf;
	return stream_open(inode, file);
}

static int tempo_chan_release(struct inode *inode, struct file *file)
{
	struct tempo_chan_file *cf = file->private_data;
	struct tempo_chan *chan = cf->chan;

	mutex_lock(&chan->lock);
	list_del(&cf->node);
	mutex_unlock(&chan->lock);
	kfree(cf);
	kref_put(&chan->ref, tempo_chan_free);
	return 0;
}

static bool tempo_chan_news(struct tempo_chan_file *cf)
{
	return atomic64_read(&cf->chan->doorbells) != READ_ONCE(cf->seen) ||
	       READ_ONCE(cf->chan->gone);
}

static ssize_t tempo_chan_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct tempo_chan_file *cf = file->private_data;
	struct tempo_chan *chan = cf->chan;
	u64 count;
	int ret;

	if (len < sizeof(count))
		return -EINVAL;
	for (;;) {
		if (READ_ONCE(chan->gone))
			return -ENODEV;
		count = atomic64_read(&chan->doorbells);
		if (count != READ_ONCE(cf->seen))
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(chan->wait, tempo_chan_news(cf));
		if (ret)
			return ret;
	}
	if (copy_to_user(buf, &count, sizeof(count)))
		return -EFAULT;
	WRITE_ONCE(cf->seen, count);
	return sizeof(count);
}

static __poll_t tempo_chan_poll(struct file *file, poll_table *wait)
{
	struct tempo_chan_file *cf = file->private_data;
	struct tempo_chan *chan = cf->chan;
	__poll_t mask = 0;

	poll_wait(file, &chan->wait, wait);
	if (READ_ONCE(chan->gone))
		return EPOLLERR | EPOLLHUP;
	if (atomic64_read(&chan->doorbells) != READ_ONCE(cf->seen))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (chan->info.flags & TEMPO_CHAN_F_TEMPO)
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/*
 * A ring is one DOORBELL write: one exit, as the ring hypercall of a bare
 * guest. Its result (RING_RESULT: sent, or -11 over doorbell_limit) would
 * cost a second exit, so it is not read: a throttled ring is counted by
 * Tempo (its CHANNEL line) and the peer is checked here.
 */
static ssize_t tempo_chan_write(struct file *file, const char __user *buf, size_t len,
				loff_t *ppos)
{
	struct tempo_chan_file *cf = file->private_data;
	struct tempo_chan *chan = cf->chan;
	u32 peer, doorbell;

	if (len != sizeof(peer))
		return -EINVAL;
	if (copy_from_user(&peer, buf, sizeof(peer)))
		return -EFAULT;
	if (!(chan->info.flags & TEMPO_CHAN_F_TEMPO))
		return -EOPNOTSUPP;
	if (peer == TEMPO_CHAN_RING_ALL)
		doorbell = TEMPO_CHAN_DOORBELL_PEER(TEMPO_CHAN_DOORBELL_ALL);
	else if (peer < chan->info.peer_count && peer != chan->info.self)
		doorbell = TEMPO_CHAN_DOORBELL_PEER(peer);
	else
		return -EINVAL;

	mutex_lock(&chan->lock);
	if (chan->gone) {
		mutex_unlock(&chan->lock);
		return -ENODEV;
	}
	iowrite32(doorbell, chan->regs + TEMPO_CHAN_DOORBELL);
	mutex_unlock(&chan->lock);
	return sizeof(peer);
}

static int tempo_chan_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct tempo_chan_file *cf = file->private_data;
	struct tempo_chan *chan = cf->chan;
	int ret;

	/*
	 * MAP_SHARED only: a private copy-on-write view of another partition's
	 * memory makes no sense. (A read-only open's shared mapping has
	 * VM_MAYSHARE without VM_SHARED.)
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (chan->info.access != TEMPO_CHAN_ACCESS_RW) {
		/* Tempo would stop the whole partition on a write (an EPT violation). */
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		vma->vm_flags &= ~VM_MAYWRITE;
	}
	/*
	 * The memory type is the default write-back of vm_page_prot, which x86
	 * PAT keeps unless the MTRRs call the range uncacheable. BAR2 is RAM on
	 * the host (Tempo's channel memory, QEMU's memory backend), and every
	 * other peer maps it write-back: the same type here is what keeps the
	 * peers coherent (SDM Vol. 3A 12.12.4 on aliased memory types). Tempo
	 * also sets EPT's ignore-PAT bit on channel memory, so under Tempo the
	 * access is write-back whatever this mapping says.
	 */
	mutex_lock(&chan->lock);
	if (chan->gone)
		ret = -ENODEV;
	else
		ret = vm_iomap_memory(vma, chan->mem_phys, chan->info.size);
	mutex_unlock(&chan->lock);
	return ret;
}

static long tempo_chan_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tempo_chan_file *cf = file->private_data;
	struct tempo_chan *chan = cf->chan;
	struct tempo_chan_info info;

	if (cmd != TEMPO_CHAN_IOC_INFO)
		return -ENOTTY;
	if (READ_ONCE(chan->gone))
		return -ENODEV;
	info = chan->info;
	info.doorbells = atomic64_read(&chan->doorbells);
	if (copy_to_user((void __user *)arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static const struct file_operations tempo_chan_fops = {
	.owner		= THIS_MODULE,
	.open		= tempo_chan_open,
	.release	= tempo_chan_release,
	.read		= tempo_chan_read,
	.write		= tempo_chan_write,
	.poll		= tempo_chan_poll,
	.mmap		= tempo_chan_mmap,
	.unlocked_ioctl	= tempo_chan_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};

/* Read a 32-byte, NUL-padded name from BAR0 (32-bit registers only). */
static void tempo_chan_read_name(struct tempo_chan *chan, unsigned int off, char *name)
{
	unsigned int i;

	for (i = 0; i < TEMPO_CHAN_NAME_LEN; i += 4) {
		__le32 w = cpu_to_le32(ioread32(chan->regs + off + i));

		memcpy(name + i, &w, 4);
	}
	name[TEMPO_CHAN_NAME_LEN - 1] = '\0';
}

/* docs/config.md: 1-31 of A-Z a-z 0-9 _ . - (and a device node needs neither . nor ..) */
static bool tempo_chan_name_ok(const char *name)
{
	const char *c;

	if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (c = name; *c; c++)
		if (!isalnum(*c) && *c != '_' && *c != '.' && *c != '-')
			return false;
	return true;
}

/* Tempo's registers: the channel as the hypervisor describes it, checked. */
static int tempo_chan_read_tempo(struct pci_dev *pdev, struct tempo_chan *chan)
{
	struct tempo_chan_info *info = &chan->info;
	resource_size_t bar2_len = pci_resource_len(pdev, BAR_MEM);
	u32 version, k;

	version = ioread32(chan->regs + TEMPO_CHAN_VERSION);
	if (version != TEMPO_CHAN_VERSION_VALUE) {
		dev_err(&pdev->dev, "Tempo channel registers version %u, this module knows %u\n",
			version, TEMPO_CHAN_VERSION_VALUE);
		return -ENODEV;
	}
	if (pci_resource_len(pdev, BAR_REGS) < TEMPO_PCI_BAR0_SIZE) {
		dev_err(&pdev->dev, "BAR0 is %llu bytes, Tempo's is %u\n",
			(u64)pci_resource_len(pdev, BAR_REGS), TEMPO_PCI_BAR0_SIZE);
		return -ENODEV;
	}
	tempo_chan_read_name(chan, TEMPO_CHAN_NAME, info->name);
	info->peer_count = ioread32(chan->regs + TEMPO_CHAN_PEER_COUNT);
	info->self = ioread32(chan->regs + TEMPO_CHAN_IV_POSITION);
	info->access = ioread32(chan->regs + TEMPO_CHAN_ACCESS);
	info->size = ioread32(chan->regs + TEMPO_CHAN_SIZE_LO) |
		     (u64)ioread32(chan->regs + TEMPO_CHAN_SIZE_HI) << 32;
	info->doorbell_limit = ioread32(chan->regs + TEMPO_CHAN_DOORBELL_LIMIT);
	info->flags = TEMPO_CHAN_F_TEMPO;

	if (!tempo_chan_name_ok(info->name)) {
		dev_err(&pdev->dev, "bad channel name '%s'\n", info->name);
		return -EINVAL;
	}
	if (info->peer_count < 1 || info->peer_count > TEMPO_CHAN_INFO_MAX_PEERS ||
	    info->self >= info->peer_count) {
		dev_err(&pdev->dev, "channel '%s': peer %u of %u is out of range\n",
			info->name, info->self, info->peer_count);
		return -EINVAL;
	}
	if (info->access != TEMPO_CHAN_ACCESS_RW && info->access != TEMPO_CHAN_ACCESS_RO) {
		dev_err(&pdev->dev, "channel '%s': access %u\n", info->name, info->access);
		return -EINVAL;
	}
	if (!info->size || !PAGE_ALIGNED(info->size) || info->size > bar2_len) {
		dev_err(&pdev->dev, "channel '%s': size %llu does not fit BAR2 (%llu bytes)\n",
			info->name, info->size, (u64)bar2_len);
		return -EINVAL;
	}
	for (k = 0; k < info->peer_count; k++)
		tempo_chan_read_name(chan, TEMPO_CHAN_PEER_NAMES + TEMPO_CHAN_NAME_LEN * k,
				     info->peers[k]);
	return 0;
}

/* QEMU's ivshmem: no name, no peers, no doorbells; all of BAR2 is the memory. */
static void tempo_chan_read_ivshmem(struct pci_dev *pdev, struct tempo_chan *chan)
{
	struct tempo_chan_info *info = &chan->info;

	snprintf(info->name, sizeof(info->name), "ivshmem-%s", pci_name(pdev));
	info->size = pci_resource_len(pdev, BAR_MEM);
	info->self = ioread32(chan->regs + TEMPO_CHAN_IV_POSITION);
	info->access = ivshmem_ro ? TEMPO_CHAN_ACCESS_RO : TEMPO_CHAN_ACCESS_RW;
}

static int tempo_chan_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct tempo_chan *chan;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	if (!(pci_resource_flags(pdev, BAR_REGS) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, BAR_REGS) < TEMPO_CHAN_MAGIC + 4 ||
	    !(pci_resource_flags(pdev, BAR_MEM) & IORESOURCE_MEM) ||
	    !pci_resource_len(pdev, BAR_MEM)) {
		dev_err(&pdev->dev, "no register BAR0 or memory BAR2\n");
		return -ENODEV;
	}
	/* Claim every BAR (the memory too, so no other driver takes it), map BAR0 only. */
	ret = pcim_iomap_regions_request_all(pdev, BIT(BAR_REGS), DRV_NAME);
	if (ret)
		return ret;

	chan = kzalloc(sizeof(*chan), GFP_KERNEL);
	if (!chan)
		return -ENOMEM;
	kref_init(&chan->ref);
	mutex_init(&chan->lock);
	init_waitqueue_head(&chan->wait);
	INIT_LIST_HEAD(&chan->files);
	atomic64_set(&chan->doorbells, 0);
	chan->irq = -1;
	chan->regs = pcim_iomap_table(pdev)[BAR_REGS];
	chan->mem_phys = pci_resource_start(pdev, BAR_MEM);

	if (ioread32(chan->regs + TEMPO_CHAN_MAGIC) == TEMPO_CHAN_MAGIC_VALUE) {
		ret = tempo_chan_read_tempo(pdev, chan);
		if (ret)
			goto err_free;
		/* MSI is a memory write by the function: bus mastering must be on. */
		pci_set_master(pdev);
		ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSI);
		if (ret < 0) {
			dev_warn(&pdev->dev, "channel '%s': no MSI (%d), no doorbell reaches it\n",
				 chan->info.name, ret);
		} else {
			chan->irq = pci_irq_vector(pdev, 0);
			chan->info.flags |= TEMPO_CHAN_F_DOORBELL;
		}
	} else {
		tempo_chan_read_ivshmem(pdev, chan);
	}

	snprintf(chan->misc_name, sizeof(chan->misc_name), "tempo-%s", chan->info.name);
	snprintf(chan->node_name, sizeof(chan->node_name), "tempo/%s", chan->info.name);
	if (chan->irq >= 0) {
		/* Not devm: it must be gone before remove() drops the last reference. */
		ret = request_irq(chan->irq, tempo_chan_irq, 0, chan->misc_name, chan);
		if (ret) {
			chan->irq = -1;
			goto err_free;
		}
	}
	chan->misc.minor = MISC_DYNAMIC_MINOR;
	chan->misc.name = chan->misc_name;
	chan->misc.nodename = chan->node_name;
	chan->misc.fops = &tempo_chan_fops;
	chan->misc.parent = &pdev->dev;
	ret = misc_register(&chan->misc);
	if (ret) {
		dev_err(&pdev->dev, "cannot register /dev/%s: %d\n", chan->node_name, ret);
		goto err_irq;
	}
	pci_set_drvdata(pdev, chan);

	if (chan->info.flags & TEMPO_CHAN_F_TEMPO)
		dev_info(&pdev->dev,
			 "/dev/%s: %llu KiB at %pa, peer %u of %u, %s, doorbell IRQ %d, limit %u/ms\n",
			 chan->node_name, chan->info.size >> 10, &chan->mem_phys, chan->info.self,
			 chan->info.peer_count,
			 chan->info.access == TEMPO_CHAN_ACCESS_RW ? "rw" : "ro", chan->irq,
			 chan->info.doorbell_limit);
	else
		dev_info(&pdev->dev, "/dev/%s: ivshmem, %llu KiB at %pa, %s, no doorbells\n",
			 chan->node_name, chan->info.size >> 10, &chan->mem_phys,
			 chan->info.access == TEMPO_CHAN_ACCESS_RW ? "rw" : "ro");
	return 0;

err_irq:
	if (chan->irq >= 0)
		free_irq(chan->irq, chan);
err_free:
	kref_put(&chan->ref, tempo_chan_free);
	return ret;
}

static void tempo_chan_remove(struct pci_dev *pdev)
{
	struct tempo_chan *chan = pci_get_drvdata(pdev);
	struct tempo_chan_file *cf;

	/* No open() runs or starts after this (misc_mtx). */
	misc_deregister(&chan->misc);

	mutex_lock(&chan->lock);
	WRITE_ONCE(chan->gone, true);
	/*
	 * The BARs are released after this returns and may be given to another
	 * device: take the pages out of every mapping. A later access faults
	 * (SIGBUS): nothing maps them again.
	 */
	list_for_each_entry(cf, &chan->files, node)
		unmap_mapping_range(cf->mapping, 0, 0, 1);
	mutex_unlock(&chan->lock);

	if (chan->irq >= 0)
		free_irq(chan->irq, chan);
	wake_up_interruptible_all(&chan->wait);
	dev_info(&pdev->dev, "/dev/%s removed\n", chan->node_name);
	kref_put(&chan->ref, tempo_chan_free);
}

static const struct pci_device_id tempo_chan_ids[] = {
	{ PCI_DEVICE(TEMPO_PCI_CHAN_VENDOR, TEMPO_PCI_CHAN_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, tempo_chan_ids);

static struct pci_driver tempo_chan_driver = {
	.name		= DRV_NAME,
	.id_table	= tempo_chan_ids,
	.probe		= tempo_chan_probe,
	.remove		= tempo_chan_remove,
};
module_pci_driver(tempo_chan_driver);

MODULE_DESCRIPTION("Tempo hypervisor channels (shared memory and doorbells) as /dev/tempo/NAME");
MODULE_LICENSE("Dual MIT/GPL");
