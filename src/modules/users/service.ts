import type { PrismaClient } from '../../generated/prisma/client.js';
import { badRequest, conflict } from '../../errors.js';
import { newId } from '../../ids.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Creates a user (the CLI's `user create`). */
export async function createUser(prisma: PrismaClient, input: { email: string; name: string }) {
  const email = input.email?.trim().toLowerCase();
  if (!email || !EMAIL.test(email)) throw badRequest('email', 'must be an email address');
  const name = input.name?.trim();
  if (!name) throw badRequest('name', 'is required');
  if (await prisma.user.findUnique({ where: { email } })) throw conflict(`A user with email ${email} already exists`);
  return prisma.user.create({ data: { id: newId(), email, displayName: name, emailVerified: true } });
}
